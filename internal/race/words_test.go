package race

import (
	"context"
	"github.com/tutti-dev/tutti/internal/race/results"
	"github.com/tutti-dev/tutti/internal/race/waitlist"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/web"
)

// render is component c as HTML.
func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var b strings.Builder
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// wantWords fails the test unless page has each of want and none of not.
func wantWords(t *testing.T, what, page string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("%s lacks %q:\n%.3000s", what, w, page)
		}
	}
	for _, n := range not {
		if strings.Contains(page, n) {
			t.Errorf("%s says %q:\n%.3000s", what, n, page)
		}
	}
}

// pageFixture is newFixture (10 places at 20.00) with the site's layout,
// for rendering whole pages.
func pageFixture(t *testing.T, d *db.DB) *fixture {
	t.Helper()
	f := newFixture(t, d, 10, 2000)
	core, err := web.NewAssets(web.StaticFS(), "/static/")
	if err != nil {
		t.Fatal(err)
	}
	f.a.Site = &web.Site{Assets: core} // the layout's
	f.a.results.Site = f.a.Site
	f.a.waitlist.Site = f.a.Site
	return f
}

// A lottery event reads as a lottery at every stage, on the race page, the
// event choice and its own page: never "Sold out" or "waiting list", never
// "drawn" before its draw, "1 place" for one; an entrant the draw did not
// pick is told so, and a runner joining after the draw is told where.
func TestLotteryReadsAsALottery(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := pageFixture(t, d)
		ctx := context.Background()
		dir, err := f.a.svc.Directed(ctx, &auth.User{ID: f.race.OwnerID}, f.race.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.a.svc.AddEvent(ctx, dir, EventInput{Name: "Marathon", StartTime: "08:00", OpensDate: "2027-03-01", OpensTime: "12:00",
			ClosesDate: "2027-04-09", ClosesTime: "20:00", Price: "80", Cap: "1", Lottery: true, DrawDate: "2027-03-02", DrawTime: "12:00"}); err != nil {
			t.Fatal(err)
		}
		lottery := func() (*Race, *Event) {
			t.Helper()
			r, err := f.a.svc.Race(ctx, f.race.Slug)
			if err != nil {
				t.Fatal(err)
			}
			for i := range r.Events {
				if r.Events[i].Lottery {
					e, err := f.a.store.Event(ctx, r.Events[i].ID)
					if err != nil {
						t.Fatal(err)
					}
					r.Events[i] = e
					return r, &e
				}
			}
			t.Fatal("no lottery event")
			return nil, nil
		}
		page := func(u *auth.User) string {
			t.Helper()
			r, e := lottery()
			we, err := f.a.svc.waitlist.Entry(ctx, u, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			return render(t, waitlist.SoldOutPage(f.a.waitlist, u, &r.Race, e, we, "", f.clock.Now()))
		}
		card := func() string {
			r, e := lottery()
			return render(t, eventCard(r, e, f.clock.Now())) + phaseText(e, f.clock.Now())
		}
		never := []string{"Sold out", "sold out", "waiting list", "1 places"}

		ann, bo := f.user(), f.user()
		r, e := lottery()
		for _, u := range []*auth.User{ann, bo} {
			if err := f.a.svc.waitlist.Join(ctx, u, &r.Race, e.ID); err != nil {
				t.Fatal(err)
			}
		}
		wantWords(t, "the race page before the draw", card(), []string{"Lottery", "The draw for 1 place is on", "lottery: entries open"}, append(never, "drawn"))
		wantWords(t, "an entrant's page before the draw", page(ann), []string{"<title>The lottery · ", "You are in the draw.", "Withdraw from the lottery", "The draw for 1 place"}, append(never, "drawn"))

		f.clock.Add(25 * time.Hour) // the draw is due, not yet made
		wantWords(t, "the race page at the draw", card(), []string{"Lottery: drawing now", "lottery: drawing now"}, never)
		if n, err := f.a.svc.waitlist.Draw(ctx, nil); err != nil || n != 1 {
			t.Fatalf("the draw: %d, %v", n, err)
		}
		if _, err := f.a.svc.waitlist.Invite(ctx); err != nil {
			t.Fatal(err)
		}
		wantWords(t, "the race page after the draw", card(), []string{"Lottery drawn", "lottery drawn"}, never)
		lost := ann
		if we, _ := f.a.svc.waitlist.Entry(ctx, ann, e.ID); we != nil && we.Status == "invited" {
			lost = bo
		}
		wantWords(t, "the page of the entrant not drawn", page(lost), []string{"You were not drawn.", "<strong>next</strong> in line", "Leave the list"},
			append(never, "Withdraw", "lottery.</button>"))
		won := ann
		if lost == ann {
			won = bo
		}
		wantWords(t, "the page of the entrant drawn", page(won), []string{"is yours", "Take my place and register", "Give up this place"},
			append(never, "Withdraw", "Leave"))
		late := f.user()
		wantWords(t, "the page of a runner after the draw", page(late), []string{"The places were drawn", "Join the list after the draw"}, never)
		r, e = lottery()
		if err := f.a.svc.waitlist.Join(ctx, late, &r.Race, e.ID); err != nil {
			t.Fatal(err)
		}
		wantWords(t, "the page of a runner who joined after the draw", page(late), []string{"You are on the list after the draw:", "<strong>1</strong> runner before you", "Leave the list"},
			append(never, "not drawn.", "Withdraw"))
	}, sets()...)
}

// A results page before the results: the race's time, to come or gone by.
func TestResultsNotYetSaysWhen(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := pageFixture(t, d)
		r, err := f.a.svc.Race(context.Background(), f.race.Slug)
		if err != nil {
			t.Fatal(err)
		}
		e := &r.Events[0]
		wantWords(t, "before the race", render(t, results.NotYetPage(f.a.results, &r.Race, e, e.StartsAt.Add(-time.Hour))),
			[]string{"Results: 10K", "The results are not published yet.", "The race is on Saturday 10 April 2027, 09:30 (Europe/Berlin time) at Riverside."},
			[]string{"was on"})
		wantWords(t, "after the race", render(t, results.NotYetPage(f.a.results, &r.Race, nil, e.StartsAt.Add(time.Hour))),
			[]string{"Results: Spring 10K", "The race was on Saturday 10 April 2027, 09:30 (Europe/Berlin time)", "as soon as its directors publish them"},
			[]string{"is on"})
	}, sets()...)
}
