package rehearsals_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/race"
	"github.com/tutti-dev/tutti/internal/race/rehearsals"
)

var rehearsalPath = regexp.MustCompile(`^/race/r/[a-z0-9-]+/admin/rehearsals/(\d+)$`)

// A director rehearses the rush of 24 runners for 15 places from the
// console: bad settings are refused, a second rehearsal waits for the
// first, the live gauges move, and the stored report says 15 registered
// and 9 sold out, with charts; the race itself is untouched (its places,
// the race list), the copy's registrations are all refunded by the
// sweeper, no mail goes to the runners' .invalid addresses, and the
// comment is kept. Nobody else may see the console.
func TestRehearsalFromTheConsole(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, m, "dora", 15)
		console := "/race/r/" + slug + "/admin/rehearsals"
		res, body := dir.Get(console)
		apptest.WantStatus(t, res, body, http.StatusOK)
		ev := regexp.MustCompile(`<option value="(\d+)"[^>]*>5K`).FindStringSubmatch(body)
		if ev == nil || !strings.Contains(body, "Set up a rehearsal") {
			t.Fatalf("console: %.3000s", body)
		}
		form := url.Values{"event": {ev[1]}, "runners": {"24"}, "page_min": {"0"}, "page_max": {"0"}, "within": {"2"},
			"click_min": {"0"}, "click_max": {"0"}, "refund_delay": {"0"}, "assets": {"on"}}
		bad := url.Values{}
		for k, v := range form {
			bad[k] = v
		}
		bad.Set("runners", "0")
		bad.Set("page_min", "5")
		bad.Set("event", "999999")
		res, body = dir.Post(console, bad)
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		for _, want := range []string{"A whole number from 1 to 50000.", "At least the shortest.", "Choose an event of this race that has not started."} {
			if !strings.Contains(body, want) {
				t.Errorf("bad settings: no %q in %.3000s", want, body)
			}
		}
		// Others: not found (a draft) or forbidden, never the console.
		eve := signedIn(t, m, "eve")
		if res, body := eve.Get(console); res.StatusCode != http.StatusForbidden && res.StatusCode != http.StatusNotFound {
			t.Errorf("eve on the console: %d %.300s", res.StatusCode, body)
		}
		if res, body := eve.Post(console, form); res.StatusCode != http.StatusForbidden && res.StatusCode != http.StatusNotFound {
			t.Errorf("eve starting a rehearsal: %d %.300s", res.StatusCode, body)
		}

		// The rehearsal waits at its first gauges of runners registering
		// until the test has read them, on whichever instance it runs.
		running, seen := make(chan struct{}), make(chan struct{})
		var ran, saw sync.Once
		release := func() { saw.Do(func() { close(seen) }) }
		t.Cleanup(release)
		var consoles []*rehearsals.App
		for _, im := range apptest.Instances(m) {
			rhs := apptest.AppOf[*race.App](t, im).Rehearsals()
			rhs.OnBeat(func(_, stage string) {
				if stage == "running" || stage == "finishing" {
					ran.Do(func() { close(running); <-seen })
				}
			})
			consoles = append(consoles, rhs)
		}
		res, body = dir.Post(console, form)
		page := apptest.WantRedirect(t, res, body)
		id := rehearsalPath.FindStringSubmatch(page)
		if id == nil {
			t.Fatalf("after starting: %s", page)
		}
		res, body = dir.Post(console, form)
		apptest.WantStatus(t, res, body, http.StatusConflict)
		if !strings.Contains(body, "A rehearsal is under way") {
			t.Errorf("a second rehearsal at once: %.500s", body)
		}
		res, body = dir.Get(page)
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, `id="live"`) || !strings.Contains(body, "<progress") {
			t.Errorf("the live page: %.3000s", body)
		}
		// The gauges, as the page's script reads them: while runners
		// register, then once it has ended.
		var p struct {
			Live       bool   `json:"live"`
			Stage      string `json:"stage"`
			Arrived    int64  `json:"arrived"`
			Registered int64  `json:"registered"`
			Percent    int    `json:"percent"`
		}
		progress := func() {
			t.Helper()
			res, body := dir.Get(page + "/progress")
			apptest.WantStatus(t, res, body, http.StatusOK)
			if err := json.Unmarshal([]byte(body), &p); err != nil {
				t.Fatalf("progress %q: %v", body, err)
			}
		}
		select {
		case <-running:
		case <-time.After(90 * time.Second):
			t.Fatal("no gauges of runners registering within 90 s")
		}
		progress()
		sawRunning := p.Live && (p.Stage == "running" || p.Stage == "finishing")
		release()
		for _, rhs := range consoles {
			rhs.Wait()
		}
		progress()
		if p.Live || p.Stage != "ended" || p.Arrived != 24 || p.Registered != 15 || p.Percent != 100 {
			t.Fatalf("progress at the end %+v; want ended, 24 arrived, 15 registered, 100 %%", p)
		}
		if !sawRunning {
			t.Error("the gauges never showed the rehearsal running")
		}
		res, body = dir.Get(page)
		apptest.WantStatus(t, res, body, http.StatusOK)
		// 15 registered of the 15 who could: the 9 who found it sold out are no failure.
		for _, want := range []string{"Report", ">100.0 %<", "registered of 24", "found the event sold out: 9", "found their choice sold out", "<svg", "Registrations per second", "pay_page"} {
			if !strings.Contains(body, want) {
				t.Errorf("report: no %q in %.6000s", want, body)
			}
		}
		if strings.Contains(body, `id="live"`) {
			t.Error("the ended rehearsal's page still live")
		}
		// The race itself: all its places, and no copy in the list.
		visitor := apptest.NewWeb(t, m)
		_, body = visitor.Get("/race/r/" + slug)
		if !strings.Contains(body, "15</strong> of 15 places left") {
			t.Errorf("the real race after the rehearsal: %.2000s", body)
		}
		_, body = visitor.Get("/race/")
		if strings.Contains(body, "-rehearsal-") {
			t.Errorf("the copy is listed: %.2000s", body)
		}
		// The sweep (every 10 s by itself; here at once) refunds the copy's
		// registrations, by jobs: all of them, as each was written before
		// its runner saw the confirmation.
		apptest.AppOf[*race.App](t, m).Service().Sweep(context.Background())
		if _, body = dir.Get(page); !strings.Contains(body, "15 made, 15 refunded") {
			t.Errorf("refunds: %.4000s", body)
		}
		list, err := m.Mail.List(1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list {
			if strings.Contains(s.To, ".invalid") {
				t.Errorf("mail sent to a rehearsal runner: %+v", s)
			}
		}
		// A comment, kept; and too long a one refused.
		res, body = dir.Post(page+"/comment", url.Values{"comment": {strings.Repeat("x", 2001)}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		res, body = dir.Post(page+"/comment", url.Values{"comment": {"Before the <b>cache</b> change."}})
		apptest.WantRedirect(t, res, body)
		_, body = dir.Get(res.Header.Get("Location"))
		if !strings.Contains(body, "Before the &lt;b&gt;cache&lt;/b&gt; change.") {
			t.Errorf("comment: %.4000s", body)
		}
		_, body = dir.Get(console)
		if !strings.Contains(body, "Before the &lt;b&gt;cache&lt;/b&gt; change.") || !strings.Contains(body, ">done<") {
			t.Errorf("console list: %.4000s", body)
		}
	})
}

// The console in a browser: the director sets up a rehearsal of 150
// runners arriving within 8 s, watches the gauges move without reloading
// (the page's script), and the page turns into the report by itself; the
// report reads on a phone too.
func TestBrowserRehearsalConsole(t *testing.T) {
	dora := apptest.Browser(t, 1280, 900)
	m := apptest.One(t)
	signedIn(t, m, "dora")
	slug := publishRace(t, m, "dora", 100)
	base := m.URL()
	console := base + "/race/r/" + slug + "/admin/rehearsals"
	if err := chromedp.Do(dora,
		apptest.SignIn(base, "dora", "password-dora"),
		chromedp.Navigate(base+"/race/r/"+slug+"/admin"),
		chromedp.Click(`a[href$="/admin/rehearsals"]`),
		chromedp.WaitVisible(`#runners`),
	); err != nil {
		t.Fatal(err)
	}
	apptest.Screenshot(t, dora, "race-rehearsal-console")
	if err := chromedp.Do(dora,
		chromedp.SetValue(`#runners`, "150"),
		chromedp.SetValue(`#page_min`, "1"),
		chromedp.SetValue(`#page_max`, "2"),
		chromedp.SetValue(`#within`, "8"),
		chromedp.SetValue(`#click_min`, "0"),
		chromedp.SetValue(`#click_max`, "1"),
		chromedp.SetValue(`#refund_delay`, "30"),
		chromedp.Click(`form[action$="/admin/rehearsals"] button[type=submit]`),
		chromedp.WaitVisible(`#live progress`),
	); err != nil {
		t.Fatal(err)
	}
	// The gauges move while the page stays: the arrivals go up.
	first, err := chromedp.Run(dora, chromedp.Text(`#arrived`))
	if err != nil {
		t.Fatal(err)
	}
	// Waits for the page to change (or turn into the report).
	arrived := `(() => { const e = document.querySelector("#arrived"); return e ? e.textContent : ""; })()`
	moved := `(() => { const e = document.querySelector("#arrived"); return !e || e.textContent !== ` + strconv.Quote(first) + `; })()`
	if _, err := chromedp.Run(dora, chromedp.Poll[bool](moved, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		// The page may have turned into the report meanwhile, which ends
		// the poll with the page it ran in.
		if later, _ := chromedp.Run(dora, chromedp.Evaluate[string](arrived)); later == first {
			t.Errorf("the arrivals gauge stayed at %q: %v", first, err)
		}
	}
	apptest.Screenshot(t, dora, "race-rehearsal-live")
	tctx, cancel := context.WithTimeout(dora, 90*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`.rehearsal-report`)); err != nil {
		apptest.Screenshot(t, dora, "race-rehearsal-failed")
		t.Fatalf("no report: %v", err)
	}
	report, err := chromedp.Run(dora, chromedp.Text(`.rehearsal-report`))
	if err != nil {
		t.Fatal(err)
	}
	// 100 registered of the 100 who could: the 50 who found it sold out are no failure.
	if !strings.Contains(report, "100.0 %") || !strings.Contains(report, "100\nregistered of 150") || !strings.Contains(report, "50\nfound their choice sold out") || !strings.Contains(report, "found the event sold out: 50") {
		t.Errorf("report: %q", report)
	}
	apptest.Screenshot(t, dora, "race-rehearsal-report")
	phone := apptest.Browser(t, 390, 844)
	if err := chromedp.Do(phone,
		apptest.SignIn(base, "dora", "password-dora"),
		chromedp.Navigate(console),
		chromedp.Click(`table.rehearsals a`),
		chromedp.WaitVisible(`.rehearsal-report`),
	); err != nil {
		t.Fatal(err)
	}
	apptest.Screenshot(t, phone, "race-rehearsal-report-phone")
	if err := chromedp.Do(phone,
		chromedp.Navigate(console),
		chromedp.WaitVisible(`#runners`),
	); err != nil {
		t.Fatal(err)
	}
	apptest.Screenshot(t, phone, "race-rehearsal-console-phone")
}

// person is someone using the site without JavaScript.
type person struct{ *apptest.Web }

// signedIn is a person with an account, signed in.
func signedIn(t *testing.T, m *app.Main, name string) *person {
	t.Helper()
	m.Auth.SetLimits(auth.Limits{})
	if _, err := m.Auth.Create(context.Background(), auth.Signup{Username: name, Email: name + "@example.com", Password: "password-" + name}); err != nil {
		t.Fatal(err)
	}
	p := &person{apptest.NewWeb(t, m)}
	res, body := p.Post("/account/login", url.Values{"login": {name}, "password": {"password-" + name}})
	apptest.WantRedirect(t, res, body)
	return p
}

// publishRace has director u publish a race (race's service) with one
// event, open from an hour ago for a month, of places; its slug.
func publishRace(t *testing.T, m *app.Main, u string, places int) string {
	t.Helper()
	ctx := context.Background()
	owner, err := m.Auth.ByUsername(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	opens, closes := time.Now().UTC().Add(-time.Hour), time.Now().UTC().AddDate(0, 1, 0)
	return publish(t, apptest.AppOf[*race.App](t, m).Service(), owner,
		race.RaceInput{Name: "Harbour Run", Location: "Old Harbour", Date: time.Now().AddDate(0, 2, 0).Format(time.DateOnly), TZ: "UTC", Currency: "usd"},
		race.EventInput{Name: "5K", StartTime: "08:00", OpensDate: opens.Format(time.DateOnly), OpensTime: opens.Format("15:04"),
			ClosesDate: closes.Format(time.DateOnly), ClosesTime: "12:00", Price: "25.50", Cap: strconv.Itoa(places)})
}
