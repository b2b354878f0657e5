package meet_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/config"
)

// TestTimeframeFormMerges: the same timeframe twice and an overlapping one
// through the no-JavaScript form are listed once each, merged, as the grid
// shows them.
func TestTimeframeFormMerges(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, _ := s.createPoll("Merge")
		ada := s.join(pub, "Ada")
		day := time.Now().AddDate(0, 0, 10).Format("2006-01-02")
		tf := url.Values{"date": {day}, "start": {"09:00"}, "end": {"11:00"}, "tier": {"2"}, "tz": {"Europe/Berlin"}}
		s.mustRedirect(s.post(ada+"/timeframes", tf))
		s.mustRedirect(s.post(ada+"/timeframes", tf))
		tf.Set("start", "10:00")
		tf.Set("end", "12:00")
		tf.Set("tier", "1")
		s.mustRedirect(s.post(ada+"/timeframes", tf))
		_, body := s.get(ada)
		list := grab(body, `<ul class="timeframes">`)
		list = list[:strings.Index(list, "</ul>")]
		if n := strings.Count(list, "<li>"); n != 2 {
			t.Errorf("%d timeframes listed; want 2 (09:00–10:00 fine, 10:00–12:00 preferred):\n%s", n, list)
		}
		if !strings.Contains(list, "09:00–10:00 · fine") || !strings.Contains(list, "10:00–12:00 · preferred") {
			t.Errorf("merged timeframes not listed as 09:00–10:00 fine and 10:00–12:00 preferred:\n%s", list)
		}
	})
}

// editForm is the organizer's form for a poll of 14-16 January 2030.
func editForm(tz, endDate string) url.Values {
	return url.Values{"title": {"Planning"}, "start_date": {"2030-01-14"}, "end_date": {endDate},
		"day_start": {"09:00"}, "day_end": {"17:00"}, "tz": {tz}}
}

func (s *site) timeframes(own string) string {
	s.t.Helper()
	_, body := s.get(own)
	list := grab(body, `<ul class="timeframes">`)
	return list[:max(0, strings.Index(list, "</ul>"))]
}

func (s *site) confirmToken(body string) string {
	s.t.Helper()
	m := regexp.MustCompile(`name="confirm" value="([0-9a-f]+)"`).FindStringSubmatch(body)
	if m == nil {
		s.t.Fatalf("no Save anyway button:\n%s", grab(body, "<main"))
	}
	return m[1]
}

// TestEditNarrowingDatesAsksFirst is the first example: narrowing a
// poll's dates removed a participant's timeframes with only "Saved.". Now the
// form comes back listing who loses what, nothing is written until "Save
// anyway", and what still fits is kept.
func TestEditNarrowingDatesAsksFirst(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		admin := s.mustRedirect(s.post("/meet/polls", editForm("Europe/Berlin", "2030-01-16")))
		pub := admin[:strings.Index(admin, "/admin/")]
		ada := s.join(pub, "Ada")
		s.mustRedirect(s.post(ada+"/timeframes", url.Values{"date": {"2030-01-14"}, "start": {"10:00"}, "end": {"11:00"}, "tier": {"1"}, "tz": {"Europe/Berlin"}}))
		s.mustRedirect(s.post(ada+"/timeframes", url.Values{"date": {"2030-01-16"}, "start": {"10:00"}, "end": {"12:00"}, "tier": {"1"}, "tz": {"Europe/Berlin"}}))

		// Renaming loses nothing: saved at once.
		renamed := editForm("Europe/Berlin", "2030-01-16")
		renamed.Set("title", "Planning 2030")
		if loc := s.mustRedirect(s.post(admin, renamed)); loc != admin {
			t.Errorf("rename redirected to %s; want %s", loc, admin)
		}

		narrow := editForm("Europe/Berlin", "2030-01-15")
		res, body := s.post(admin, narrow)
		if res.StatusCode != http.StatusConflict {
			t.Fatalf("narrowing the dates: status %d; want 409 with a confirmation", res.StatusCode)
		}
		if !strings.Contains(body, "This change removes answers") || !strings.Contains(body, "<strong>Ada</strong> loses Wed 16 Jan, 10:00–12:00 (preferred)") {
			t.Errorf("the confirmation does not say Ada loses Wed 16 Jan, 10:00–12:00:\n%s", grab(body, "confirm-loss"))
		}
		if !strings.Contains(body, `value="2030-01-15"`) {
			t.Errorf("the form does not keep the typed end date")
		}
		if list := s.timeframes(ada); strings.Count(list, "<li>") != 2 {
			t.Errorf("an unconfirmed edit changed Ada's answers:\n%s", list)
		}
		if _, body := s.get(pub); !strings.Contains(body, "16 Jan") {
			t.Errorf("an unconfirmed edit changed the poll's dates")
		}
		token := s.confirmToken(body)

		// Meanwhile Grace answers on the 16th too: the confirmation given for
		// Ada alone does not cover her, so the form asks again.
		grace := s.join(pub, "Grace")
		s.mustRedirect(s.post(grace+"/timeframes", url.Values{"date": {"2030-01-16"}, "start": {"09:00"}, "end": {"10:00"}, "tier": {"2"}, "tz": {"Europe/Berlin"}}))
		narrow.Set("confirm", token)
		res, body = s.post(admin, narrow)
		if res.StatusCode != http.StatusConflict || !strings.Contains(body, "<strong>Grace</strong> loses Wed 16 Jan, 09:00–10:00 (fine)") {
			t.Fatalf("stale confirmation: status %d; want 409 listing Grace too:\n%s", res.StatusCode, grab(body, "confirm-loss"))
		}
		narrow.Set("confirm", s.confirmToken(body))
		res, body = s.post(admin, narrow)
		if loc := s.mustRedirect(res, body); loc != admin {
			t.Errorf("confirmed edit redirected to %s", loc)
		}
		if _, body := s.get(admin + "?saved=1&removed=2"); !strings.Contains(body, "no longer fit") {
			t.Errorf("the admin page does not say that times were removed")
		}
		list := s.timeframes(ada)
		if strings.Count(list, "<li>") != 1 || !strings.Contains(list, "Mon 14 Jan, 10:00–11:00 · preferred") {
			t.Errorf("Ada's answers after the edit; want only Mon 14 Jan, 10:00–11:00:\n%s", list)
		}
		if list := s.timeframes(grace); strings.Contains(list, "<li>") {
			t.Errorf("Grace's answer outside the poll was kept:\n%s", list)
		}
	})
}

// TestEditZoneKeepsWhatStillFits is the second example: changing a
// poll's zone from UTC to Europe/Berlin deleted a whole answer, including the
// hour that still fit. Answers keep their instants and are clipped.
func TestEditZoneKeepsWhatStillFits(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		admin := s.mustRedirect(s.post("/meet/polls", editForm("UTC", "2030-01-14")))
		pub := admin[:strings.Index(admin, "/admin/")]
		ada := s.join(pub, "Ada")
		// 15:00-17:00 UTC; in Berlin the poll's 09:00-17:00 is 08:00-16:00 UTC.
		s.mustRedirect(s.post(ada+"/timeframes", url.Values{"date": {"2030-01-14"}, "start": {"15:00"}, "end": {"17:00"}, "tier": {"2"}, "tz": {"UTC"}}))
		berlin := editForm("Europe/Berlin", "2030-01-14")
		res, body := s.post(admin, berlin)
		if res.StatusCode != http.StatusConflict || !strings.Contains(body, "<strong>Ada</strong> loses Mon 14 Jan, 16:00–17:00 (fine)") {
			t.Fatalf("zone change: status %d; want 409 saying Ada loses 16:00–17:00 UTC:\n%s", res.StatusCode, grab(body, "confirm-loss"))
		}
		berlin.Set("confirm", s.confirmToken(body))
		s.mustRedirect(s.post(admin, berlin))
		// The hour that still fits is kept: 15:00-16:00 UTC, 16:00-17:00 in Berlin.
		list := s.timeframes(ada)
		if strings.Count(list, "<li>") != 1 || !strings.Contains(list, "Mon 14 Jan, 16:00–17:00 · fine") {
			t.Errorf("Ada's answer after the zone change; want Mon 14 Jan, 16:00–17:00 (Berlin) · fine:\n%s", list)
		}
	})
}

// TestFullLinks: the admin page shows the public and admin links as full
// URLs and every participant's private link; the participant's own page shows
// theirs; all from the request's host, or from --base-url when set. The
// public poll page names no private link.
func TestFullLinks(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, admin := s.createPoll("Links")
		ada := s.join(pub, "Ada")
		grace := s.join(pub, "Grace")
		_, body := s.get(admin)
		for _, c := range []struct{ id, path string }{
			{"public-url", pub}, {"admin-link", admin}, {"own-link-", ada}, {"own-link-", grace},
		} {
			want := `value="` + s.base + c.path + `"`
			if !regexp.MustCompile(`id="` + c.id + `[0-9]*" class="copy-url" value="` + regexp.QuoteMeta(s.base+c.path) + `"`).MatchString(body) {
				t.Errorf("admin page: no copy field %s... with %s", c.id, want)
			}
		}
		if n := strings.Count(body, `class="secondary small copy-btn" data-copy=`); n != 4 {
			t.Errorf("admin page: %d copy buttons; want 4 (public, admin, Ada, Grace)", n)
		}
		_, body = s.get(ada)
		if !strings.Contains(body, `id="own-link" class="copy-url" value="`+s.base+ada+`"`) || !strings.Contains(body, "Bookmark this page") {
			t.Errorf("own page: the private link is not shown in full with a bookmark hint:\n%s", grab(body, "own-link"))
		}
		_, body = s.get(pub)
		for _, own := range []string{ada, grace} {
			if tok := own[strings.LastIndex(own, "/")+1:]; strings.Contains(body, tok) {
				t.Errorf("the public poll page shows a private link's secret")
			}
		}
	})
	t.Run("base-url", func(t *testing.T) {
		m := apptest.StartWith(t, func(c *config.Config) { c.BaseURL = "http://meet.example:8080/" })
		s := newSite(t, m)
		// m.URL() is the base URL, which does not resolve: requests go to the listener.
		s.Base = "http://" + m.Addr()
		s.base = s.Base
		pub, admin := s.createPoll("Links")
		ada := s.join(pub, "Ada")
		_, body := s.get(admin)
		for _, path := range []string{pub, admin, ada} {
			if !strings.Contains(body, `value="http://meet.example:8080`+path+`"`) {
				t.Errorf("admin page: %s not shown under the base URL", path)
			}
		}
		if _, body := s.get(ada); !strings.Contains(body, `value="http://meet.example:8080`+ada+`"`) {
			t.Errorf("own page: private link not shown under the base URL")
		}
	})
}

// TestRememberedParticipation: the private page carries what the browser
// keeps (poll, participant, name, private path); the poll page has the place
// where the browser shows "You answered as X: edit", while staying one cached
// page for everyone; a taken name says how to get back in.
func TestRememberedParticipation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, _ := s.createPoll("Remember")
		ada := s.join(pub, "Ada")
		_, body := s.get(ada + "?joined=1")
		id := strings.TrimPrefix(pub, "/meet/polls/")
		pid := strings.Split(ada, "/")[5]
		want := `data-remember data-poll="` + id + `" data-pid="` + pid + `" data-name="Ada" data-url="` + ada + `"`
		if !strings.Contains(body, want) {
			t.Errorf("own page lacks %s:\n%s", want, grab(body, "own-link"))
		}
		if !strings.Contains(body, "/meet/static/participations.") || !strings.Contains(body, "data-leave") {
			t.Errorf("own page: no participations.js or leave form marked data-leave")
		}
		res, body := s.get(pub)
		if !strings.Contains(body, `id="my-answers" hidden`) || !strings.Contains(body, "/meet/static/participations.") {
			t.Errorf("poll page: no place for the remembered answers")
		}
		// Another browser gets the very same bytes.
		other := newSite(t, m)
		res2, body2 := other.get(pub)
		if body2 != body || res2.Header.Get("ETag") != res.Header.Get("ETag") || res.Header.Get("ETag") == "" {
			t.Errorf("the poll page is no longer one cached page for everyone")
		}
		if res, body := s.post(pub+"/participants", url.Values{"name": {"Ada"}}); res.StatusCode != 422 || !strings.Contains(body, "open your private link") {
			t.Errorf("a taken name: status %d; want 422 saying how to get back to one's answers", res.StatusCode)
		}
	})
}
