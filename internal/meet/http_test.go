package meet_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// site drives a running server like a browser without JavaScript
// (apptest.Web, with this file's short names).
type site struct {
	*apptest.Web
	t    *testing.T
	m    *app.Main
	c    *http.Client
	base string
}

func newSite(t *testing.T, m *app.Main) *site {
	w := apptest.NewWeb(t, m)
	return &site{Web: w, t: t, m: m, c: w.Client, base: w.Base}
}

func (s *site) do(method, path string, body io.Reader, header http.Header) (*http.Response, string) {
	s.t.Helper()
	return s.Do(method, path, body, header)
}

func (s *site) get(path string) (*http.Response, string) { s.t.Helper(); return s.Get(path) }

func (s *site) post(path string, form url.Values) (*http.Response, string) {
	s.t.Helper()
	return s.Post(path, form)
}

// mustRedirect asserts a 303 and returns its target path.
func (s *site) mustRedirect(res *http.Response, body string) string {
	s.t.Helper()
	return apptest.WantRedirect(s.t, res, body)
}

func pollForm(title string, start time.Time) url.Values {
	return url.Values{
		"title": {title}, "description": {"Quarterly planning"},
		"start_date": {start.Format("2006-01-02")}, "end_date": {start.AddDate(0, 0, 2).Format("2006-01-02")},
		"day_start": {"09:00"}, "day_end": {"17:00"}, "tz": {"Europe/Berlin"},
	}
}

// createPoll creates a poll and returns its public and admin paths.
func (s *site) createPoll(title string) (pub, admin string) {
	s.t.Helper()
	admin = s.mustRedirect(s.post("/meet/polls", pollForm(title, time.Now().AddDate(0, 0, 10))))
	m := regexp.MustCompile(`^/meet/polls/([A-Za-z0-9_-]{22})/admin/[A-Za-z0-9_-]+$`).FindStringSubmatch(admin)
	if m == nil {
		s.t.Fatalf("admin link %q does not look right", admin)
	}
	return "/meet/polls/" + m[1], admin
}

// join adds a participant and returns their private link.
func (s *site) join(pub, name string) string {
	s.t.Helper()
	return s.mustRedirect(s.post(pub+"/participants", url.Values{"name": {name}}))
}

func (s *site) pollCount() int {
	s.t.Helper()
	var n int
	if err := s.m.DB.QueryRow(context.Background(), "SELECT COUNT(*) FROM meet_polls").Scan(&n); err != nil {
		s.t.Fatal(err)
	}
	return n
}

func TestCreatePollValidation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		start := time.Now().AddDate(0, 0, 5)
		cases := []struct {
			name  string
			edit  func(url.Values)
			field string
			msg   string
		}{
			{"empty title", func(v url.Values) { v.Set("title", "   ") }, "title", "Give the poll a title"},
			{"end before start", func(v url.Values) { v.Set("end_date", start.AddDate(0, 0, -1).Format("2006-01-02")) }, "end_date", "end date"},
			{"daily end before start", func(v url.Values) { v.Set("day_end", "08:00") }, "day_end", "daily end"},
			{"unknown zone", func(v url.Values) { v.Set("tz", "Mars/Olympus") }, "tz", ""},
		}
		for _, c := range cases {
			form := pollForm("Offsite <b>2026</b>", start)
			c.edit(form)
			res, body := s.post("/meet/polls", form)
			if res.StatusCode != http.StatusUnprocessableEntity {
				t.Errorf("%s: status %d; want 422", c.name, res.StatusCode)
			}
			if !strings.Contains(body, `id="`+c.field+`-error"`) {
				t.Errorf("%s: no message at field %s", c.name, c.field)
			}
			if c.msg != "" && !strings.Contains(body, c.msg) {
				t.Errorf("%s: body lacks %q", c.name, c.msg)
			}
			if c.field != "title" && !strings.Contains(body, `value="Offsite &lt;b&gt;2026&lt;/b&gt;"`) {
				t.Errorf("%s: the title was not kept (escaped) in the form", c.name)
			}
		}
		if n := s.pollCount(); n != 0 {
			t.Errorf("%d polls written by invalid forms; want 0", n)
		}
	})
}

func TestPollLifecycle(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, admin := s.createPoll("Team dinner")
		if res, body := s.get(admin + "?created=1"); res.StatusCode != 200 || !strings.Contains(body, "private admin link") {
			t.Fatalf("admin page: %d", res.StatusCode)
		}
		if _, body := s.get("/meet/"); !strings.Contains(body, "Team dinner") {
			t.Errorf("the polls page does not list the new poll")
		}
		res, body := s.get(pub)
		if res.StatusCode != 200 || !strings.Contains(body, "No availability yet") {
			t.Fatalf("poll page: %d", res.StatusCode)
		}
		ada := s.join(pub, "Ada")
		grace := s.join(pub, "Grace")
		if res, body := s.post(pub+"/participants", url.Values{"name": {"ada"}}); res.StatusCode != 422 || !strings.Contains(body, "already uses that name") {
			t.Errorf("duplicate name: status %d; want 422 with a message", res.StatusCode)
		}
		if res, body := s.post(pub+"/participants", url.Values{"name": {"  "}}); res.StatusCode != 422 || !strings.Contains(body, `name="name"`) {
			t.Errorf("blank name: status %d; want 422 with the form again", res.StatusCode)
		}
		// A join reads nothing before its write: a poll that does not exist
		// is still a 404, with a good name or a bad one.
		for _, name := range []string{"Zed", "  "} {
			if res, _ := s.post("/meet/polls/ZZZZZZZZZZZZZZZZZZZZZZ/participants", url.Values{"name": {name}}); res.StatusCode != 404 {
				t.Errorf("join %q to no poll: status %d; want 404", name, res.StatusCode)
			}
		}
		// Ada adds a timeframe through the form (times in the poll's zone).
		day := time.Now().AddDate(0, 0, 10).Format("2006-01-02")
		tf := url.Values{"date": {day}, "start": {"10:00"}, "end": {"11:30"}, "tier": {"1"}, "tz": {"Europe/Berlin"}}
		s.mustRedirect(s.post(ada+"/timeframes", tf))
		tf.Set("tier", "2")
		tf.Set("start", "10:30")
		s.mustRedirect(s.post(grace+"/timeframes", tf))
		_, body = s.get(pub)
		// Both are free 10:30-11:30 (1 + 4 = 5); only Ada 10:00-10:30.
		if !strings.Contains(body, "10:30–11:30</strong>") || !strings.Contains(body, "2 of 2 free") {
			t.Errorf("best time 10:30–11:30 with 2 of 2 free not shown:\n%s", grab(body, "best-list"))
		}
		// Bad timeframe: outside the daily window; nothing is written.
		bad := url.Values{"date": {day}, "start": {"18:00"}, "end": {"19:00"}, "tier": {"1"}, "tz": {"Europe/Berlin"}}
		if res, body := s.post(ada+"/timeframes", bad); res.StatusCode != 422 || !strings.Contains(body, `value="18:00"`) {
			t.Errorf("timeframe outside the window: status %d; want 422 with the value kept", res.StatusCode)
		}
		// Comments show on the poll page at once.
		s.mustRedirect(s.post(ada+"/comments", url.Values{"body": {"<script>alert(1)</script> works for me"}}))
		_, body = s.get(pub)
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt; works for me") || strings.Contains(body, "<script>alert(1)") {
			t.Errorf("comment missing or not escaped")
		}
		if res, _ := s.post(ada+"/comments", url.Values{"body": {"  "}}); res.StatusCode != 422 {
			t.Errorf("empty comment: status %d; want 422", res.StatusCode)
		}
		// CSV export.
		res, body = s.get(pub + "/export.csv")
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") || !strings.Contains(body, "Ada") || !strings.Contains(body, "Grace") {
			t.Errorf("csv: %d %q", res.StatusCode, body)
		}
		// Close on the best time; the page shows the decision and an .ics.
		if res, _ := s.get(pub + "/event.ics"); res.StatusCode != 404 {
			t.Errorf(".ics before closing: %d; want 404", res.StatusCode)
		}
		_, body = s.get(admin)
		choice := regexp.MustCompile(`name="choice" value="([^"]+)"`).FindStringSubmatch(body)
		if choice == nil {
			t.Fatalf("admin page offers no time to close on")
		}
		s.mustRedirect(s.post(admin+"/close", url.Values{"choice": {choice[1]}}))
		_, body = s.get(pub)
		if !strings.Contains(body, "Decided") {
			t.Errorf("closed poll does not show the decision")
		}
		res, body = s.get(pub + "/event.ics")
		if res.StatusCode != 200 || !strings.Contains(body, "BEGIN:VEVENT") || !strings.Contains(body, "SUMMARY:Team dinner") {
			t.Errorf(".ics: %d %q", res.StatusCode, body)
		}
		// A closed poll takes no more answers.
		if res, _ := s.post(ada+"/timeframes", tf); res.StatusCode != http.StatusConflict {
			t.Errorf("timeframe on a closed poll: status %d; want 409", res.StatusCode)
		}
		// Duplicate, then delete the original.
		dup := s.mustRedirect(s.post(admin+"/duplicate", nil))
		if _, body := s.get(dup); !strings.Contains(body, "Copy of Team dinner") {
			t.Errorf("duplicate is not a copy")
		}
		s.mustRedirect(s.post(admin+"/delete", nil))
		if res, _ := s.get(pub); res.StatusCode != 404 {
			t.Errorf("deleted poll: %d; want 404", res.StatusCode)
		}
	})
}

func grab(body, marker string) string {
	i := strings.Index(body, marker)
	if i < 0 {
		return "(no " + marker + ")"
	}
	return body[i:min(len(body), i+1500)]
}

func TestCacheInvalidationAndConditionalGET(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, _ := s.createPoll("Cached")
		res, _ := s.get(pub)
		etag := res.Header.Get("ETag")
		if etag == "" {
			t.Fatal("no ETag on the poll page")
		}
		res, _ = s.do("GET", pub, nil, http.Header{"If-None-Match": {etag}})
		if res.StatusCode != http.StatusNotModified {
			t.Errorf("revalidation: %d; want 304", res.StatusCode)
		}
		s.get(pub) // decoded and kept (cache.Pages)
		before := m.DB.Queries()
		hits, misses := m.Cache.Stats()
		for range 5 {
			s.get(pub)
		}
		// A hit is a map load of the decoded page: the shared cache is not
		// asked (no lookup, no decoding).
		if h, mi := m.Cache.Stats(); h != hits || mi != misses {
			t.Errorf("5 cached views asked the shared cache %d times; want none", h-hits+mi-misses)
		}
		// With PostgreSQL too: the poll's version read is trusted for a
		// second when no change is heard of (internal/version).
		if d := m.DB.Queries() - before; d > 1 {
			t.Errorf("5 cached views ran %d statements; want at most 1", d)
		}
		// Any change is visible on the very next request.
		s.join(pub, "Newcomer")
		res, body := s.do("GET", pub, nil, http.Header{"If-None-Match": {etag}})
		if res.StatusCode != 200 || !strings.Contains(body, "Newcomer") {
			t.Errorf("after a change: status %d, shows newcomer %v; want 200, true", res.StatusCode, strings.Contains(body, "Newcomer"))
		}
		if res.Header.Get("ETag") == etag {
			t.Errorf("ETag did not change after a change")
		}
	})
}

func TestNoNPlusOne(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		count := func(n int) int64 {
			pub, _ := s.createPoll(fmt.Sprintf("Poll of %d", n))
			day := time.Now().AddDate(0, 0, 10).Format("2006-01-02")
			for i := range n {
				own := s.join(pub, fmt.Sprintf("P%d", i))
				if i%50 == 0 {
					s.mustRedirect(s.post(own+"/timeframes", url.Values{"date": {day}, "start": {"09:00"}, "end": {"10:00"}, "tier": {"2"}, "tz": {"Europe/Berlin"}}))
					s.mustRedirect(s.post(own+"/comments", url.Values{"body": {"hi"}}))
				}
			}
			before := m.DB.Queries()
			res, body := s.get(pub)
			if res.StatusCode != 200 || !strings.Contains(body, fmt.Sprintf("%d participants", n)) {
				t.Fatalf("poll page of %d: %d", n, res.StatusCode)
			}
			return m.DB.Queries() - before
		}
		small, large := count(5), count(500)
		// Keyset pages: the second page of the 500 shows P5 to P9.
		_, body := s.get("/meet/")
		pub := regexp.MustCompile(`href="(/meet/polls/[A-Za-z0-9_-]{22})">Poll of 500`).FindStringSubmatch(body)
		if pub == nil {
			t.Fatal("poll of 500 not listed")
		}
		_, body = s.get(pub[1])
		next := regexp.MustCompile(`href="(/meet/polls/[^"]+\?after=[^"#]+)`).FindStringSubmatch(body)
		if next == nil {
			t.Fatal("no link to more participants")
		}
		_, body = s.get(next[1])
		if !strings.Contains(body, ">P5<") || !strings.Contains(body, ">P9<") || strings.Contains(body, ">P4<") || strings.Contains(body, ">P10<") {
			t.Errorf("second page of participants is not P5-P9")
		}
		if small != large {
			t.Errorf("poll page ran %d statements with 5 participants and %d with 500; want the same", small, large)
		}
	})
}

func TestPrivateLinksAndBadInput(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, admin := s.createPoll("Rights")
		ada := s.join(pub, "Ada")
		grace := s.join(pub, "Grace")
		// Ada's token with Grace's id: not found, nothing written.
		adaParts, graceParts := strings.Split(ada, "/"), strings.Split(grace, "/")
		forged := strings.Join(append(graceParts[:len(graceParts)-1:len(graceParts)-1], adaParts[len(adaParts)-1]), "/")
		day := time.Now().AddDate(0, 0, 10).Format("2006-01-02")
		tf := url.Values{"date": {day}, "start": {"09:00"}, "end": {"10:00"}, "tier": {"1"}, "tz": {"Europe/Berlin"}}
		if res, _ := s.post(forged+"/timeframes", tf); res.StatusCode != 404 {
			t.Errorf("forged participant link: %d; want 404", res.StatusCode)
		}
		if res, _ := s.post(strings.Replace(admin, "/admin/", "/admin/x", 1)+"/delete", nil); res.StatusCode != 404 {
			t.Errorf("wrong admin token: %d; want 404", res.StatusCode)
		}
		if res, _ := s.get(pub); res.StatusCode != 200 {
			t.Errorf("poll gone after a forged delete")
		}
		var n int
		m.DB.QueryRow(context.Background(), "SELECT COUNT(*) FROM meet_timeframes").Scan(&n)
		if n != 0 {
			t.Errorf("%d timeframes written through forged links; want 0", n)
		}
		for _, c := range []struct {
			method, path string
			want         int
		}{
			{"GET", "/meet/polls/nope", 404},
			{"GET", "/meet/polls/AAAAAAAAAAAAAAAAAAAAAA", 404},
			{"GET", pub + "/p/abc", 404},
			{"GET", pub + "/p/999999", 404},
			{"DELETE", pub, 405},
			{"PUT", "/meet/polls", 405},
		} {
			if res, _ := s.do(c.method, c.path, nil, nil); res.StatusCode != c.want {
				t.Errorf("%s %s: %d; want %d", c.method, c.path, res.StatusCode, c.want)
			}
		}
		big := url.Values{"title": {strings.Repeat("x", 2<<20)}}
		if res, _ := s.post("/meet/polls", big); res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("oversized form: %d; want 413", res.StatusCode)
		}
		// The grid's JSON: bad input is a 422 problem, good input replaces availability.
		res, body := s.do("POST", ada+"/availability", strings.NewReader(`{"slots":[{"start":"1999-01-01T00:00:00Z","tier":1}]}`),
			http.Header{"Content-Type": {"application/json"}})
		if res.StatusCode != 422 || !strings.Contains(res.Header.Get("Content-Type"), "problem+json") {
			t.Errorf("bad availability: %d %s %s; want 422 problem", res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		res, body = s.do("POST", ada+"/availability", strings.NewReader(`{"slots":[{"start":"`+slotAt(t, day, "Europe/Berlin", "09:00")+`","tier":2}]}`),
			http.Header{"Content-Type": {"application/json"}})
		if res.StatusCode != 200 {
			t.Errorf("availability: %d %s; want 200", res.StatusCode, body)
		}
		// Cross-origin form posts are refused.
		res, _ = s.do("POST", pub+"/participants", bytes.NewBufferString("name=Mallory"), http.Header{
			"Content-Type": {"application/x-www-form-urlencoded"}, "Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}})
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("cross-origin post: %d; want 403", res.StatusCode)
		}
	})
}

func slotAt(t *testing.T, day, zone, hhmm string) string {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := time.ParseInLocation("2006-01-02 15:04", day+" "+hhmm, loc)
	if err != nil {
		t.Fatal(err)
	}
	return ts.UTC().Format(time.RFC3339)
}

func TestBusyImport(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, _ := s.createPoll("Busy")
		own := s.join(pub, "Ada")
		day := time.Now().AddDate(0, 0, 10).Format("20060102")
		upload := func(name, content string) (*http.Response, string) {
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			fw, _ := mw.CreateFormFile("calendar", name)
			fw.Write([]byte(content))
			mw.Close()
			return s.do("POST", own+"/busy", &body, http.Header{"Content-Type": {mw.FormDataContentType()}})
		}
		ics := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART;TZID=Europe/Berlin:" + day +
			"T100000\r\nDTEND;TZID=Europe/Berlin:" + day + "T113000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
		res, _ := upload("cal.ics", ics)
		if loc := res.Header.Get("Location"); res.StatusCode != 303 || !strings.Contains(loc, "imported=1") {
			t.Fatalf("import: %d %q; want 303 with imported=1", res.StatusCode, loc)
		}
		_, body := s.get(own)
		if !strings.Contains(body, "1 busy time imported") {
			t.Errorf("participant page does not mention the import")
		}
		// The grid data marks the six busy slots (10:00-11:30).
		if m := regexp.MustCompile(`"busy":\[([0-9,]*)\]`).FindStringSubmatch(strings.ReplaceAll(body, "&#34;", `"`)); m == nil || len(strings.Split(m[1], ",")) != 6 {
			t.Errorf("busy slots in the grid data = %v; want 6", m)
		}
		res, body = upload("notes.txt", "hello")
		if res.StatusCode != 422 || !strings.Contains(body, "not a valid calendar") {
			t.Errorf("garbage upload: %d; want 422 with a message", res.StatusCode)
		}
		// Every second since 2020: refused with a message (it kept a core
		// busy for good). The work it costs is bounded by what parsing it
		// allocates, in TestParseBusyHostile ("secondly-far-back").
		res, body = upload("s.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:s\r\nDTSTART:20200101T000000Z\r\n"+
			"DTEND:20200101T000001Z\r\nRRULE:FREQ=SECONDLY\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
		if res.StatusCode != 422 || !strings.Contains(body, "repeat too often") {
			t.Errorf("SECONDLY since 2020: %d; want 422 with a message", res.StatusCode)
		}
		// A weekly meeting since 2016 (a leap year: any date exists) on the poll's first day.
		first, _ := time.Parse("20060102", day)
		weekly := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:w\r\nDTSTART;TZID=Europe/Berlin:2016" + first.Format("0102") +
			"T100000\r\nDTEND;TZID=Europe/Berlin:2016" + first.Format("0102") + "T110000\r\nRRULE:FREQ=WEEKLY;BYDAY=" +
			strings.ToUpper(first.Weekday().String()[:2]) + "\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
		if res, _ := upload("weekly.ics", weekly); res.StatusCode != 303 || !strings.Contains(res.Header.Get("Location"), "imported=1") {
			t.Errorf("weekly since 2016: %d %q; want 303 with imported=1", res.StatusCode, res.Header.Get("Location"))
		}
	})
}
