package race_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/pay"
)

// answer is one response: its status, where it sends the runner (a 303),
// and its body.
type answer struct {
	status   int
	location string
	body     string
}

// sendAtOnce posts form to path n times at once, as a runner's double (or
// fourfold) click does, and returns the answers.
func (p *person) sendAtOnce(n int, path string, form url.Values) []answer {
	p.t.Helper()
	out := make([]answer, n)
	errc := make(chan error, n)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequest(http.MethodPost, p.Base+path, strings.NewReader(form.Encode()))
			if err != nil {
				errc <- err
				return
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			start.Wait()
			res, err := p.Client.Do(req)
			if err != nil {
				errc <- err
				return
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			if err != nil {
				errc <- err
				return
			}
			loc := ""
			if u, err := url.Parse(res.Header.Get("Location")); err == nil {
				loc = u.Path
			}
			out[i] = answer{res.StatusCode, loc, string(b)}
		}()
	}
	start.Done()
	wg.Wait()
	close(errc)
	for err := range errc {
		p.t.Fatalf("POST %s: %v", path, err)
	}
	return out
}

// sameRedirect fails the test unless every answer is a 303 to one place
// and returns it.
func sameRedirect(t *testing.T, what string, as []answer) string {
	t.Helper()
	for i, a := range as {
		if a.status != http.StatusSeeOther || a.location != as[0].location {
			t.Fatalf("%s sent %d times at once: answer %d is %d to %q; answer 0 is %d to %q. Body:\n%.1500s",
				what, len(as), i, a.status, a.location, as[0].status, as[0].location, a.body)
		}
	}
	return as[0].location
}

// Every POST of the runner's wizard sent four times at once (a runner's
// impatient clicks, two tabs) answers all four the same (a 303 to the same
// page), and does what one send does: one hold, one team, one donation,
// the store lines once, one code use, one charge, one registration.
func TestWizardFormsSentFourTimesAtOnce(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "50")
		admin := "/race/r/" + slug + "/admin"
		dir.to(dir.Post(admin+"/extras", url.Values{"teams": {"on"}, "fundraiser": {"Harbour Trust"}}))
		dir.to(dir.Post(admin+"/items", url.Values{"name": {"Shirt"}, "price": {"12"}, "stock": {"5"}}))
		dir.to(dir.Post(admin+"/codes", url.Values{"code": {"club-25"}, "percent": {"25"}, "max_uses": {"3"}}))

		rita := signedIn(t, m, "rita")
		_, page := rita.Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)
		if ev == nil {
			t.Fatalf("no event on the race page: %.1500s", page)
		}
		rita.Get("/race/r/" + slug + "/register?event=" + ev[1]) // the event page: its queue ticket
		details := sameRedirect(t, "the event", rita.sendAtOnce(4, "/race/r/"+slug+"/register", url.Values{"event": {ev[1]}}))
		if !strings.HasSuffix(details, "/details") {
			t.Fatalf("the event: to %s", details)
		}
		entry := strings.TrimSuffix(details, "/details")
		steps := []struct {
			page string
			form url.Values
			next string
		}{
			{"details", url.Values{"first_name": {"Rita"}, "last_name": {"Runner"}, "email": {"rita@example.com"},
				"birth_date": {"1988-02-03"}, "gender": {"F"}, "emergency": {"Al, 555 0100"}}, "team"},
			{"team", url.Values{"team": {"Pier Pacers"}}, "donation"},
			{"donation", url.Values{"amount": {"other"}, "other": {"7.50"}}, "store"},
			{"store", nil, "waiver"},
			{"waiver", url.Values{"accept": {"yes"}}, "review"},
			{"code", url.Values{"code": {"club-25"}}, "pay"},
		}
		for _, s := range steps {
			form := s.form
			if s.page == "store" {
				_, body := rita.Get(entry + "/store")
				q := itemQty.FindStringSubmatch(body)
				if q == nil {
					t.Fatalf("store page: %.1500s", body)
				}
				form = url.Values{q[1]: {"2"}}
			}
			if got := sameRedirect(t, s.page, rita.sendAtOnce(4, entry+"/"+s.page, form)); got != entry+"/"+s.next {
				t.Fatalf("%s: to %s; want %s/%s", s.page, got, entry, s.next)
			}
		}
		_, body := rita.Get(entry + "/pay")
		total := regexp.MustCompile(`name="total" value="(\d+)"`).FindStringSubmatch(body)
		form := url.Values{"card": {pay.CardPaid}}
		if total != nil {
			form.Set("total", total[1])
		}
		done := sameRedirect(t, "the payment", rita.sendAtOnce(4, entry+"/pay", form))
		if done != entry+"/done" && done != entry+"/wait" {
			t.Fatalf("the payment: to %s", done)
		}
		count := func(q string, args ...any) int {
			var n int
			if err := db.Scan(m.DB.QueryRow(context.Background(), q, args...), &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := count(`SELECT count(*) FROM pay_test_payments WHERE outcome = 'paid'`); n != 1 {
			t.Errorf("%d charges; want 1", n)
		}
		if n := count(`SELECT count(*) FROM race_holds`); n != 1 {
			t.Errorf("%d holds; want 1", n)
		}
		if n := count(`SELECT count(*) FROM race_teams`); n != 1 {
			t.Errorf("%d teams; want 1", n)
		}
		if n := count(`SELECT coalesce(sum(qty), 0) FROM race_hold_items`); n != 2 {
			t.Errorf("%d shirts held; want 2", n)
		}
		if n := count(`SELECT coalesce(sum(used), 0) FROM race_codes`); n != 1 {
			t.Errorf("%d code uses; want 1", n)
		}
		if n := count(`SELECT coalesce(sum(taken), 0) FROM race_items`); n != 2 {
			t.Errorf("%d shirts taken from stock; want 2", n)
		}
		written(t, m, entry)
		if n := count(`SELECT count(*) FROM race_registrations`); n != 1 {
			t.Errorf("%d registrations once written; want 1", n)
		}
	})
}
