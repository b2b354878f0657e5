package race_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/mail"
	"github.com/tutti-dev/tutti/internal/pay"
)

var (
	mailURL = regexp.MustCompile(`\b[a-z][a-z0-9+.-]*://[^\s<>"]+`)
	// A bare path in a mail: "/race/r/..." after a space, a colon or a
	// line's start.
	barePath = regexp.MustCompile(`(?m)(^|[\s:(])/[A-Za-z0-9][^\s]*`)
)

// register walks p through the wizard for event ev of race slug and
// returns the entry's path once the registration is written.
func register(t *testing.T, p *person, slug, ev, first string) string {
	t.Helper()
	path, _ := p.to(p.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}}))
	if !strings.HasSuffix(path, "/details") {
		t.Fatalf("holding a place: %s", path)
	}
	entry := strings.TrimSuffix(path, "/details")
	p.to(p.Post(entry+"/details", url.Values{"first_name": {first}, "last_name": {"Runner"}, "email": {strings.ToLower(first) + "@example.com"},
		"birth_date": {"1988-02-03"}, "gender": {"F"}, "emergency": {"Al, 555 0100"}}))
	p.to(p.Post(entry+"/waiver", url.Values{"accept": {"yes"}}))
	res, body := p.Post(entry+"/pay", url.Values{"card": {pay.CardPaid}})
	path = apptest.WantRedirect(t, res, body)
	for deadline := time.Now().Add(20 * time.Second); strings.HasSuffix(path, "/wait"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s's registration not written in 20 s", first)
		}
		if res, body = p.Get(entry + "/wait"); res.StatusCode == http.StatusSeeOther {
			path = apptest.WantRedirect(t, res, body)
		}
	}
	if path != entry+"/done" {
		t.Fatalf("after paying: %s", path)
	}
	return entry
}

// postOK posts form to path as p and wants a redirect.
func postOK(t *testing.T, p *person, path string, form url.Values) {
	t.Helper()
	res, body := p.Post(path, form)
	apptest.WantRedirect(t, res, body)
}

// awaitMail is the first mail to address whose subject has subject, from
// any of m's instances' outboxes, waiting up to 30 s for it.
func awaitMail(t *testing.T, m *app.Main, to, subject string) *mail.Stored {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		for _, in := range apptest.Instances(m) {
			list, err := in.Mail.List(500)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range list {
				if (l.To == to || l.To == "<"+to+">" || strings.HasSuffix(l.To, "<"+to+">")) && strings.Contains(l.Subject, subject) {
					s, err := in.Mail.Read(l.Name)
					if err != nil {
						t.Fatal(err)
					}
					return s
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no mail to %s about %q in 30 s", to, subject)
		}
	}
}

// follow GETs the absolute URL u as p, following redirects, and returns
// the last answer's status and body.
func follow(t *testing.T, p *person, u string) (int, string) {
	t.Helper()
	for range 10 {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		var b strings.Builder
		buf := make([]byte, 32<<10)
		for {
			n, err := res.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		res.Body.Close()
		if res.StatusCode/100 != 3 {
			return res.StatusCode, b.String()
		}
		next, err := res.Location()
		if err != nil {
			t.Fatalf("GET %s: %d without a Location", u, res.StatusCode)
		}
		u = next.String()
	}
	t.Fatalf("GET %s: more than 10 redirects", u)
	return 0, ""
}

// Every kind of mail the site sends (every app's: auth's and race's, the
// runner's notices included: a start or place changed, a directors'
// message, an invitation and its expiry, a draw's outcomes; meet and roar
// send none), with no --base-url set: each is triggered over
// HTTP, read from the outbox, and every link in it is absolute, on the
// address the request that began the flow used, and answers 200 to its
// reader (following redirects, as a browser does); no link is a bare path.
func TestEveryMailHasAbsoluteWorkingLinks(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "1")
		ann, bea, cat := signedIn(t, m, "ann"), signedIn(t, m, "bea"), signedIn(t, m, "cat")
		dan, eve := signedIn(t, m, "dan"), signedIn(t, m, "eve")
		people := map[string]*person{"dan": dan, "eve": eve}
		visitor := &person{apptest.NewWeb(t, m), t}
		_, page := visitor.Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)[1]
		admin := "/race/r/" + slug + "/admin"
		var won, lost string // the draw's, known once it is made
		kinds := []struct {
			name, to, subject string
			reader            *person
			trigger           func()
			links             int     // at least
			who               *string // set: the mail is to this one of people (to and reader unset)
		}{
			{"password reset", "cat@example.com", "Reset your tutti password", visitor, func() {
				postOK(t, visitor, "/account/reset", url.Values{"email": {"cat@example.com"}})
			}, 1, nil},
			{"e-mail change: confirm the new address", "cat.new@example.com", "Confirm your new e-mail address", cat, func() {
				postOK(t, cat, "/account/email", url.Values{"new_email": {"cat.new@example.com"}, "current_password": {"password-cat"}})
			}, 1, nil},
			{"e-mail change: notice to the old address", "cat@example.com", "A change of your tutti e-mail address", cat, func() {}, 1, nil},
			{"e-mail change: address taken", "bea@example.com", "Your address was entered", cat, func() {
				postOK(t, cat, "/account/email", url.Values{"new_email": {"bea@example.com"}, "current_password": {"password-cat"}})
			}, 0, nil},
			{"race: registration confirmed", "ann@example.com", "You're registered", ann, func() {
				register(t, ann, slug, ev, "Ann")
			}, 1, nil},
			{"race: start time changed", "ann@example.com", "Start time changed", ann, func() {
				f := eventForm(t, "5K", "25.50", "1")
				f.Set("start_time", "09:30")
				postOK(t, dir, admin+"/events/"+ev, f)
			}, 2, nil},
			{"race: place changed", "ann@example.com", "Place changed", ann, func() {
				_, basics := dir.Get(admin + "/basics")
				date, _ := inputValue(basics, "date")
				postOK(t, dir, admin+"/basics", url.Values{"name": {"Harbour Run"}, "location": {"New Pier"}, "date": {date},
					"tz": {"America/New_York"}, "currency": {"usd"}})
			}, 2, nil},
			{"race: a message from the directors", "ann@example.com", "Harbour Run · 5K: Parking", ann, func() {
				form := url.Values{"subject": {"Parking"}, "body": {"Park on Pier Road."}}
				_, body := dir.Post(admin+"/events/"+ev+"/message", form)
				key := sendKey.FindStringSubmatch(body)
				if key == nil {
					t.Fatalf("no send key: %.2000s", body)
				}
				form.Set("key", key[1])
				form.Set("confirm", "1")
				postOK(t, dir, admin+"/events/"+ev+"/message", form)
			}, 2, nil},
			{"race: waiting list invitation", "bea@example.com", "A place for you", bea, func() {
				path, _ := bea.to(bea.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}}))
				if !strings.HasSuffix(path, "/sold-out") {
					t.Fatalf("bea's start on a full event: %s", path)
				}
				bea.to(bea.Post("/race/r/"+slug+"/events/"+ev+"/waitlist", nil))
				_, body := dir.Get("/race/r/" + slug + "/admin/events/" + ev + "/entrants")
				rid := regexp.MustCompile(`/admin/registrations/(\d+)/cancel`).FindStringSubmatch(body)
				if rid == nil {
					t.Fatalf("no cancel link for ann on the entrants page: %.2000s", body)
				}
				postOK(t, dir, "/race/r/"+slug+"/admin/registrations/"+rid[1]+"/cancel", nil)
				sweepNow(t, m) // the place that came back goes to bea
			}, 1, nil},
			{"race: registration cancelled", "ann@example.com", "Registration cancelled", ann, func() {}, 1, nil},
			{"race: refund done", "ann@example.com", "Refund done", ann, func() {}, 1, nil},
			{"race: invitation expired", "bea@example.com", "Invitation expired", bea, func() { expireNow(t, m, ev) }, 2, nil},
			{"race: lottery drawn", "", "You were drawn", nil, func() {
				drawNow(t, m, lotteryOf(t, dir, slug, "1", dan, eve))
				for name := range people {
					if msg := awaitMail(t, m, name+"@example.com", "Harbour Run · Marathon"); strings.HasPrefix(msg.Subject, "You were drawn") {
						won = name
					} else {
						lost = name
					}
				}
				if won == "" || lost == "" {
					t.Fatalf("drawn %q, not drawn %q; want one each", won, lost)
				}
			}, 2, &won},
			{"race: lottery not drawn", "", "Not drawn", nil, func() {}, 2, &lost},
		}
		origin := strings.TrimRight(m.URL(), "/")
		for _, k := range kinds {
			t.Run(k.name, func(t *testing.T) {
				k.trigger()
				if k.who != nil {
					k.to, k.reader = *k.who+"@example.com", people[*k.who]
				}
				msg := awaitMail(t, m, k.to, k.subject)
				if bare := barePath.FindAllString(msg.Text, -1); len(bare) > 0 {
					t.Errorf("bare paths %q in %q:\n%s", bare, msg.Subject, msg.Text)
				}
				links := mailURL.FindAllString(msg.Text, -1)
				if len(links) < k.links {
					t.Errorf("%d links in %q; want at least %d:\n%s", len(links), msg.Subject, k.links, msg.Text)
				}
				for _, l := range links {
					l = strings.TrimRight(l, ".,;)")
					if !strings.HasPrefix(l, origin+"/") {
						t.Errorf("link %s in %q is not on the site's address %s", l, msg.Subject, origin)
						continue
					}
					if status, body := follow(t, k.reader, l); status != http.StatusOK {
						t.Errorf("link %s in %q answers %d: %.500s", l, msg.Subject, status, body)
					}
				}
			})
		}
	})
}
