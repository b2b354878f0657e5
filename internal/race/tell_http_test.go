package race_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/race"
)

var sendKey = regexp.MustCompile(`name="key" value="([^"]+)"`)

// A director writes to an event's registrants: the form from the
// registrants page, refused by field with what was typed kept, then a page
// that asks first saying how many mails it sends; the sending tells every
// runner registered (not one cancelled) by mail and on their page, once
// however often the button is pressed. Only the race's directors can.
func TestDirectorWritesToRegistrants(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "5")
		ann, bea, cat := signedIn(t, m, "ann"), signedIn(t, m, "bea"), signedIn(t, m, "cat")
		_, page := ann.Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)[1]
		register(t, ann, slug, ev, "Ann")
		register(t, bea, slug, ev, "Bea")
		register(t, cat, slug, ev, "Cat")
		admin := "/race/r/" + slug + "/admin"
		_, list := dir.Get(admin + "/events/" + ev + "/entrants")
		cancel := regexp.MustCompile(`(?s)Cat Runner</td>.*?href="(/race/r/[^"]+/admin/registrations/\d+/cancel)"`).FindStringSubmatch(list)
		if cancel == nil {
			t.Fatalf("no cancel link for cat on the entrants page: %.3000s", list)
		}
		postOK(t, dir, cancel[1], nil)
		awaitMail(t, m, "cat@example.com", "Registration cancelled")
		write := admin + "/events/" + ev + "/message"
		if !strings.Contains(list, `href="`+write+`"`) {
			t.Errorf("the registrants page has no link to write to them: %.2000s", list)
		}
		res, body := dir.Get(write)
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "Write to the registrants of 5K") || !strings.Contains(body, "(2 now)") {
			t.Errorf("the message page: %.2000s", body)
		}

		// Refused: beside the field and at the top, what was typed kept.
		long := strings.Repeat("word ", 1001)
		res, body = dir.Post(write, url.Values{"subject": {""}, "body": {long}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		for _, want := range []string{"Give the message a subject.", "The message can have at most 5000 characters; this one has 5004.",
			`href="#body">Message</a>`, strings.TrimSpace(long)} {
			if !strings.Contains(body, want) {
				t.Errorf("the refused form lacks %q: %.1500s", want, body)
			}
		}
		// Asks first, saying how many; nothing is sent meanwhile.
		form := url.Values{"subject": {"Parking moved"}, "body": {"The car park is on Pier Road this year.\n\nBring a pin for your bib."}}
		res, body = dir.Post(write, form)
		apptest.WantStatus(t, res, body, http.StatusOK)
		for _, want := range []string{"This sends <strong>2 mails</strong> to the registrants of 5K", "Send 2 mails", "Change the message",
			"Harbour Run · 5K: Parking moved", "Bring a pin for your bib."} {
			if !strings.Contains(body, want) {
				t.Errorf("the page that asks first lacks %q: %.2500s", want, body)
			}
		}
		key := sendKey.FindStringSubmatch(body)
		if key == nil {
			t.Fatalf("no send key: %.2000s", body)
		}
		if _, mine := ann.Get("/race/mine"); strings.Contains(mine, "Parking moved") {
			t.Errorf("told before the director confirmed: %.2000s", mine)
		}
		// "Change the message" is the form again, as typed.
		edit := url.Values{"subject": form["subject"], "body": form["body"], "key": {key[1]}, "confirm": {"1"}, "edit": {"1"}}
		res, body = dir.Post(write, edit)
		apptest.WantStatus(t, res, body, http.StatusOK)
		if v, _ := inputValue(body, "subject"); v != "Parking moved" || !strings.Contains(body, "Bring a pin for your bib.</textarea>") {
			t.Errorf("changing the message: subject %q, %.2000s", v, body)
		}
		// Someone else cannot, nor can a GET send.
		olga := signedIn(t, m, "olga")
		res, body = olga.Get(write)
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		send := url.Values{"subject": form["subject"], "body": form["body"], "key": {key[1]}, "confirm": {"1"}}
		res, body = olga.Post(write, send)
		apptest.WantStatus(t, res, body, http.StatusForbidden)

		res, body = dir.Post(write, send)
		if apptest.WantRedirect(t, res, body); res.Header.Get("Location") != write+"?sent=2" {
			t.Errorf("after sending: %s; want %s?sent=2", res.Header.Get("Location"), write)
		}
		_, body = dir.Get(write + "?sent=2")
		if !strings.Contains(body, "Sent to 2 registrants") || !strings.Contains(body, "Sent before") ||
			!strings.Contains(body, "Harbour Run · 5K: Parking moved</strong> <span class=\"muted\">· ") || !strings.Contains(body, " · to 2 runners") {
			t.Errorf("the page after sending: %.3000s", body)
		}
		// The same button again (a double click, a reload): not sent twice.
		res, body = dir.Post(write, send)
		if apptest.WantRedirect(t, res, body); res.Header.Get("Location") != write+"?sent=again" {
			t.Errorf("sending again: %s; want ?sent=again", res.Header.Get("Location"))
		}
		for _, p := range []struct {
			who   *person
			first string
		}{{ann, "Ann"}, {bea, "Bea"}} {
			msg := awaitMail(t, m, strings.ToLower(p.first)+"@example.com", "Harbour Run · 5K: Parking moved")
			for _, want := range []string{"Hello " + p.first + ",\n\nThe car park is on Pier Road this year.\n\nBring a pin for your bib.",
				"(From the directors of Harbour Run, to everyone registered for 5K.)", "The race: " + m.URL() + "/race/r/" + slug} {
				if !strings.Contains(strings.ReplaceAll(msg.Text, "\r\n", "\n"), want) {
					t.Errorf("%s's mail lacks %q:\n%s", p.first, want, msg.Text)
				}
			}
			_, mine := p.who.Get("/race/mine")
			if n := strings.Count(mine, "Harbour Run · 5K: Parking moved"); n != 1 || !strings.Contains(mine, "<p>Bring a pin for your bib.</p>") {
				t.Errorf("%s's page shows the message %d times; want once, with its words: %.3000s", p.first, n, mine)
			}
		}
		if _, mine := cat.Get("/race/mine"); strings.Contains(mine, "Parking moved") {
			t.Errorf("a cancelled registrant was written to")
		}

		// An event nobody is registered for: nobody to write to.
		res, body = dir.Post(admin+"/events", eventForm(t, "10K", "30", "10"))
		apptest.WantRedirect(t, res, body)
		_, page = dir.Get(admin + "/events")
		var other string
		for _, id := range editedEvent.FindAllStringSubmatch(page, -1) {
			if id[1] != ev {
				other = id[1]
			}
		}
		res, body = dir.Post(admin+"/events/"+other+"/message", form)
		apptest.WantStatus(t, res, body, http.StatusConflict)
		if !strings.Contains(body, "Nobody is registered for this event") || !strings.Contains(body, `value="Parking moved"`) {
			t.Errorf("writing to nobody: %.2000s", body)
		}
	})
}

// A director's save that moves an event's start, or the race's place,
// tells each runner registered the before and the after, by mail and on
// their page; a save that moves neither tells nobody; the race page (a
// cached view) shows the change at once.
func TestStartAndPlaceChangesAreTold(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "5")
		ann := signedIn(t, m, "ann")
		_, page := ann.Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)[1]
		register(t, ann, slug, ev, "Ann")
		admin := "/race/r/" + slug + "/admin"
		postOK(t, dir, admin+"/events/"+ev, eventForm(t, "5K", "25.50", "5")) // as it was
		f := eventForm(t, "5K", "25.50", "5")
		f.Set("start_time", "09:30")
		postOK(t, dir, admin+"/events/"+ev, f)
		msg := awaitMail(t, m, "ann@example.com", "Start time changed: Harbour Run · 5K")
		for _, want := range []string{"Hello Ann,", "It was ", ", 08:00 E", "; it is now ", ", 09:30 E", "(America/New_York)"} {
			if !strings.Contains(msg.Text, want) {
				t.Errorf("the start's mail lacks %q:\n%s", want, msg.Text)
			}
		}
		if _, race := ann.Get("/race/r/" + slug); !strings.Contains(race, "09:30") {
			t.Errorf("the race page after the start moved: %.3000s", race)
		}

		_, basics := dir.Get(admin + "/basics")
		date, _ := inputValue(basics, "date")
		b := url.Values{"name": {"Harbour Run"}, "location": {"Old Harbour"}, "date": {date}, "tz": {"America/New_York"}, "currency": {"usd"}}
		postOK(t, dir, admin+"/basics", b) // as it was
		b.Set("location", "New Pier, Dock 4")
		postOK(t, dir, admin+"/basics", b)
		msg = awaitMail(t, m, "ann@example.com", "Place changed: Harbour Run · 5K")
		if !strings.Contains(msg.Text, "It was to take place at Old Harbour; it now takes place at New Pier, Dock 4.") {
			t.Errorf("the place's mail:\n%s", msg.Text)
		}
		if _, race := ann.Get("/race/r/" + slug); !strings.Contains(race, "New Pier, Dock 4") {
			t.Errorf("the race page after the place moved: %.3000s", race)
		}
		_, mine := ann.Get("/race/mine")
		for want, n := range map[string]int{"Start time changed: Harbour Run · 5K": 1, "Place changed: Harbour Run · 5K": 1} {
			if got := strings.Count(mine, want); got != n {
				t.Errorf("ann's page shows %q %d times; want %d: %.3000s", want, got, n, mine)
			}
		}
	})
}

// lotteryOf adds to race slug a lottery event of cap places, entered by
// runners, and returns its id.
func lotteryOf(t *testing.T, dir *person, slug, cap string, runners ...*person) string {
	t.Helper()
	now := time.Now().In(mustZone(t, "America/New_York"))
	res, body := dir.Post("/race/r/"+slug+"/admin/events", url.Values{"name": {"Marathon"}, "start_time": {"07:00"},
		"opens_date": {now.Add(-time.Hour).Format(time.DateOnly)}, "opens_time": {now.Add(-time.Hour).Format("15:04")},
		"closes_date": {now.AddDate(0, 1, 0).Format(time.DateOnly)}, "closes_time": {"12:00"}, "price": {"90"}, "cap": {cap},
		"lottery": {"on"}, "draw_date": {now.AddDate(0, 0, 7).Format(time.DateOnly)}, "draw_time": {"12:00"}})
	apptest.WantRedirect(t, res, body)
	_, page := dir.Get("/race/r/" + slug)
	lot := regexp.MustCompile(`/race/r/[^"]+/events/(\d+)/lottery`).FindStringSubmatch(page)
	if lot == nil {
		t.Fatalf("no lottery on the race page: %.2000s", page)
	}
	for _, p := range runners {
		postOK(t, p, "/race/r/"+slug+"/events/"+lot[1]+"/waitlist", nil)
	}
	return lot[1]
}

// drawNow brings lottery ev's draw time to now (a week is long for a
// test), a millisecond after the entries made so far, and sweeps once it
// has passed: the sweep draws it.
func drawNow(t *testing.T, m *app.Main, ev string) {
	t.Helper()
	at := time.Now().UnixMilli() + 1
	if _, err := m.DB.Exec(context.Background(), `UPDATE race_events SET draw_at = ? WHERE id = ?`, at, ev); err != nil {
		t.Fatal(err)
	}
	for time.Now().UnixMilli() <= at { // the draw is due once the clock is past it
		time.Sleep(time.Millisecond)
	}
	sweepNow(t, m)
}

// expireNow runs every invitation to event ev out now (a day is long for a
// test), and sweeps: the sweep expires them.
func expireNow(t *testing.T, m *app.Main, ev string) {
	t.Helper()
	if _, err := m.DB.Exec(context.Background(), `UPDATE race_waitlist SET expires_at = ? WHERE event_id = ? AND status = 'invited'`,
		time.Now().UnixMilli(), ev); err != nil {
		t.Fatal(err)
	}
	sweepNow(t, m)
}

// sweepNow runs race's sweep on m now (the writer's, every 10 s by
// itself): expired holds and invitations, lotteries due, waiting lists.
// Its work is done when it returns (its mails queued), so a test awaits
// what follows from it instead of the clock.
func sweepNow(t *testing.T, m *app.Main) {
	t.Helper()
	apptest.AppOf[*race.App](t, m).Service().Sweep(context.Background())
}

// The draw tells each entrant, by mail and on their page: the runner drawn
// that a place is kept for her (until when, and the link to take it), the
// other that she was not drawn and is next in line. When the winner lets
// her invitation run out she is told so, and the place goes to the next,
// who is invited.
func TestDrawAndInvitationsTellTheRunners(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "5")
		ann, bea := signedIn(t, m, "ann"), signedIn(t, m, "bea")
		ev := lotteryOf(t, dir, slug, "1", ann, bea)
		drawNow(t, m, ev)
		runners := map[string]*person{"ann": ann, "bea": bea}
		var won, lost string
		for name := range runners {
			msg := awaitMail(t, m, name+"@example.com", "Harbour Run · Marathon")
			switch {
			case strings.HasPrefix(msg.Subject, "You were drawn"):
				won = name
				for _, want := range []string{"were drawn, and you have one", "kept for you until ", "(America/New_York)",
					"Take your place: " + m.URL() + "/race/r/" + slug + "/events/" + ev + "/lottery"} {
					if !strings.Contains(msg.Text, want) {
						t.Errorf("the winner's mail lacks %q:\n%s", want, msg.Text)
					}
				}
			case strings.HasPrefix(msg.Subject, "Not drawn"):
				lost = name
				if !strings.Contains(msg.Text, "you were not drawn") || !strings.Contains(msg.Text, "you are next in line.") {
					t.Errorf("the mail of the entrant not drawn:\n%s", msg.Text)
				}
			default:
				t.Errorf("%s's first mail about the lottery: %q", name, msg.Subject)
			}
		}
		if won == "" || lost == "" {
			t.Fatalf("drawn %q, not drawn %q; want one each", won, lost)
		}
		if _, mine := runners[won].Get("/race/mine"); !strings.Contains(mine, "You were drawn: Harbour Run · Marathon") ||
			!strings.Contains(mine, `href="/race/r/`+slug+`/events/`+ev+`/lottery">Take your place</a>`) {
			t.Errorf("the winner's page: %.3000s", mine)
		}
		if _, mine := runners[lost].Get("/race/mine"); !strings.Contains(mine, "Not drawn: Harbour Run · Marathon") {
			t.Errorf("the page of the entrant not drawn: %.3000s", mine)
		}
		expireNow(t, m, ev)
		msg := awaitMail(t, m, won+"@example.com", "Invitation expired: Harbour Run · Marathon")
		if !strings.Contains(msg.Text, "went to the next runner") {
			t.Errorf("the expiry's mail:\n%s", msg.Text)
		}
		msg = awaitMail(t, m, lost+"@example.com", "A place for you: Harbour Run · Marathon")
		if !strings.Contains(msg.Text, "kept for you until ") || !strings.Contains(msg.Text, "Take your place: "+m.URL()+"/race/r/"+slug) {
			t.Errorf("the invitation's mail:\n%s", msg.Text)
		}
		if _, mine := runners[won].Get("/race/mine"); !strings.Contains(mine, "Invitation expired: Harbour Run · Marathon") {
			t.Errorf("the page of the runner whose invitation expired: %.3000s", mine)
		}
		if _, mine := runners[lost].Get("/race/mine"); !strings.Contains(mine, "A place for you: Harbour Run · Marathon") {
			t.Errorf("the invited runner's page: %.3000s", mine)
		}
	})
}
