package race_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/race"
	"github.com/tutti-dev/tutti/internal/ratelimit"
	"github.com/tutti-dev/tutti/internal/room"
)

// oneASecond puts a waiting room that lets one runner in a second in front
// of every instance's wizard (shared, as Redis shares it in a cluster).
func oneASecond(t *testing.T, m *app.Main) *room.Rooms {
	rs, err := room.New(room.NewLocal(), []byte(strings.Repeat("t", 32)), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range apptest.Instances(m) {
		apptest.AppOf[*race.App](t, in).Rooms = rs
	}
	return rs
}

// When runners come faster than the room lets them in, the next waits on
// the room's page with their place, cannot hold a place by posting the
// form, and goes on by themselves when their turn comes.
func TestWaitingRoomLetsInAtItsRate(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		slug := publishRace(t, signedIn(t, m, "dora"), "50")
		oneASecond(t, m)
		var clock atomic.Int64 // the room's time: its turns come without sleeping
		clock.Store(time.Now().UnixNano())
		for _, in := range apptest.Instances(m) {
			apptest.AppOf[*race.App](t, in).Now = func() time.Time { return time.Unix(0, clock.Load()) }
		}
		_, page := signedIn(t, m, "vic").Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)[1]
		register := "/race/r/" + slug + "/register?event=" + ev
		queue := "/race/r/" + slug + "/queue?event=" + ev

		ann, ben := signedIn(t, m, "ann"), signedIn(t, m, "ben")
		res, body := ann.Get(register)
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "Hold my place") {
			t.Fatalf("the first runner waits: %.1000s", body)
		}
		// The second waits: the room's page comes at once at the wizard's
		// address (no redirect: one request less per arrival in a rush),
		// then at the room's own as it refreshes itself there.
		for _, path := range []string{register, queue} {
			res, body = ben.Get(path)
			apptest.WantStatus(t, res, body, http.StatusOK)
			if !strings.Contains(body, "in the queue") || !strings.Contains(body, "<strong>1</strong> runner ahead") || strings.Contains(body, "Hold my place") {
				t.Fatalf("the room's page at %s: %.2000s", path, body)
			}
			if got := res.Header.Get("Refresh"); got != "1; url="+queue {
				t.Errorf("Refresh at %s %q", path, got)
			}
			if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("the room's page at %s may be cached: %q", path, cc)
			}
		}
		// Waiting costs no statement, though ben is signed in: the room's
		// page, the race page and its style sheet read no session (with
		// PostgreSQL, at most the race's version once).
		css := regexp.MustCompile(`/race/static/race\.[0-9a-f]+\.css`).FindString(page)
		ben.Get(queue)
		ben.Get("/race/r/" + slug)
		before := apptest.Queries(m)
		for range 5 {
			for _, path := range []string{queue, "/race/r/" + slug, css} {
				res, body := ben.Get(path)
				apptest.WantStatus(t, res, body, http.StatusOK)
			}
		}
		if n := apptest.Queries(m) - before; n > int64(len(apptest.Instances(m))) {
			t.Errorf("15 requests of a waiting runner made %d statements", n)
		}
		// Posting the form without a turn holds nothing.
		res, body = ben.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}})
		if got := apptest.WantRedirect(t, res, body); got != "/race/r/"+slug+"/queue" {
			t.Fatalf("a post out of turn went to %s", got)
		}
		var holds int
		if err := db.Scan(m.DB.QueryRow(context.Background(), `SELECT COUNT(*) FROM race_holds`), &holds); err != nil || holds != 0 {
			t.Fatalf("%d holds after a post out of turn (%v)", holds, err)
		}
		// Someone else's ticket lets nobody in: no cookie, back to the wizard's start.
		visitor := apptest.NewWeb(t, m)
		res, body = visitor.Get(queue)
		if got := apptest.WantRedirect(t, res, body); got != "/race/r/"+slug+"/register" {
			t.Errorf("no ticket: sent to %s", got)
		}

		clock.Add(int64(1100 * time.Millisecond))
		res, body = ben.Get(queue)
		if got := apptest.WantRedirect(t, res, body); got != "/race/r/"+slug+"/register" {
			t.Fatalf("after the turn came: sent to %s", got)
		}
		_, body = ben.to(ben.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}}))
		if !strings.Contains(body, "your place is held") {
			t.Fatalf("after the turn: %.1000s", body)
		}
	})
}

// lagging is a Health at its floor: a room on it whose clock started
// earlier reads its clock far behind the wall clock.
type lagging struct{}

func (lagging) Level(time.Time) float64 { return 0.1 }
func (lagging) Min() float64            { return 0.1 }

// A runner let in stays in: once their turn has come (at once, or after
// waiting), no later read of the room's clock sends them back to the line,
// though it reads the clock behind their turn (another instance's in the
// cluster, one keeping its own while Redis cannot be asked, or a read
// that took its time before another's and came after it). Before the
// fix, the wizard's next page sent them back to the queue, and a runner
// of the rush ended neither registered nor sold out.
func TestWaitingRoomNeverTakesATurnBack(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		slug := publishRace(t, signedIn(t, m, "dora"), "50")
		rs := oneASecond(t, m)
		var clock atomic.Int64 // the room's time: the turn comes without sleeping
		clock.Store(time.Now().UnixNano())
		now := func() time.Time { return time.Unix(0, clock.Load()) }
		for _, in := range apptest.Instances(m) {
			apptest.AppOf[*race.App](t, in).Now = now
		}
		_, page := signedIn(t, m, "vic").Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)[1]
		register := "/race/r/" + slug + "/register?event=" + ev
		queue := "/race/r/" + slug + "/queue?event=" + ev

		ann, ben := signedIn(t, m, "ann"), signedIn(t, m, "ben")
		res, body := ann.Get(register) // in at once
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "Hold my place") {
			t.Fatalf("the first runner waits: %.1000s", body)
		}
		res, body = ben.Get(register) // waits a second
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "in the queue") {
			t.Fatalf("the second runner is let in: %.1000s", body)
		}
		tk, ok := rs.Decode(cookie(ben, "/race/r/"+slug, "tutti_room"))
		if !ok {
			t.Fatal("ben has no ticket")
		}
		clock.Add(int64(1100 * time.Millisecond))
		res, body = ben.Get(queue) // his turn has come: on to the wizard
		if got := apptest.WantRedirect(t, res, body); got != "/race/r/"+slug+"/register" {
			t.Fatalf("after the turn came: sent to %s", got)
		}

		// Every instance now reads a clock ten seconds behind both turns.
		behind, err := room.New(room.NewLocal(), []byte(strings.Repeat("t", 32)), 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		behind.Health = lagging{}
		if _, err := behind.Where(context.Background(), tk, now().Add(-11*time.Second)); err != nil { // its clock starts then
			t.Fatal(err)
		}
		if p, _ := behind.Where(context.Background(), tk, now()); p.In(now()) {
			t.Fatalf("the lagging room lets ben in: %+v", p)
		}
		for _, in := range apptest.Instances(m) {
			apptest.AppOf[*race.App](t, in).Rooms = behind
		}
		for _, p := range []*person{ann, ben} {
			_, body = p.to(p.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}}))
			if !strings.Contains(body, "your place is held") {
				t.Fatalf("a runner let in, sent back: %.1000s", body)
			}
		}
	})
}

// cookie is the value of p's cookie name sent to path ("" if none).
func cookie(p *person, path, name string) string {
	u, _ := url.Parse(p.Base + path)
	for _, c := range p.Client.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// A runner who joins the room again and again without its cookie (each
// join takes the next turn, behind everyone's) is refused past the join
// limit with a 429, while the ticket they hold still shows their place.
func TestWaitingRoomJoinsAreLimited(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		slug := publishRace(t, signedIn(t, m, "dora"), "50")
		oneASecond(t, m)
		limit := ratelimit.NewLocal(time.Minute, 2)
		for _, in := range apptest.Instances(m) {
			apptest.AppOf[*race.App](t, in).JoinLimit = limit
		}
		_, page := signedIn(t, m, "vic").Get("/race/r/" + slug)
		register := "/race/r/" + slug + "/register?event=" + eventID.FindStringSubmatch(page)[1]
		res, body := signedIn(t, m, "ann").Get(register) // in at once: the room's burst
		apptest.WantStatus(t, res, body, http.StatusOK)

		eve := signedIn(t, m, "eve")
		var session []string // eve's sign-in, without any ticket
		u, _ := url.Parse(eve.Base)
		for _, c := range eve.Client.Jar.Cookies(u) {
			session = append(session, c.Name+"="+c.Value)
		}
		res, body = eve.Get(register) // her first join: a ticket, kept
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "in the queue") {
			t.Fatalf("eve waits: %.1000s", body)
		}
		// Joins from fresh browsers signed in as eve, each without a ticket.
		join := func() (*http.Response, string) {
			return apptest.NewWeb(t, m).Do(http.MethodGet, register, nil, http.Header{"Cookie": {strings.Join(session, "; ")}})
		}
		res, body = join() // a second join, allowed
		apptest.WantStatus(t, res, body, http.StatusOK)
		res, body = join()
		apptest.WantStatus(t, res, body, http.StatusTooManyRequests)
		if res.Header.Get("Retry-After") == "" || !strings.Contains(body, "back of the queue") {
			t.Errorf("the third join's answer: Retry-After %q, %.500s", res.Header.Get("Retry-After"), body)
		}
		res, body = eve.Get(register) // her ticket still shows her place
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "in the queue") {
			t.Errorf("eve with her ticket: %.1000s", body)
		}
	})
}

// Runners who come before the opening wait for it, all told how many wait
// with them; at the opening each is let in at a drawn moment.
func TestWaitingRoomBeforeTheOpening(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		slug := publishRace(t, signedIn(t, m, "dora"), "50")
		oneASecond(t, m)
		var id, opens int64
		if err := db.Scan(m.DB.QueryRow(context.Background(), `SELECT id, opens_at FROM race_events`), &id, &opens); err != nil {
			t.Fatal(err)
		}
		opening := time.UnixMilli(opens)
		var clock atomic.Int64
		clock.Store(opening.Add(-10 * time.Minute).UnixNano())
		for _, in := range apptest.Instances(m) {
			apptest.AppOf[*race.App](t, in).Now = func() time.Time { return time.Unix(0, clock.Load()) }
		}
		ev := strconv.FormatInt(id, 10)
		register := "/race/r/" + slug + "/register?event=" + ev
		queue := "/race/r/" + slug + "/queue?event=" + ev

		var runners []*person
		for _, name := range []string{"ann", "ben", "cat"} {
			p := signedIn(t, m, name)
			res, body := p.Get(register)
			apptest.WantStatus(t, res, body, http.StatusOK)
			if !strings.Contains(body, "Registration opens") || strings.Contains(body, "Hold my place") ||
				!strings.HasSuffix(res.Header.Get("Refresh"), "; url="+queue) {
				t.Fatalf("%s before the opening: %.2000s", name, body)
			}
			runners = append(runners, p)
		}
		res, body := runners[0].Get(queue)
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "Registration opens") || !strings.Contains(body, "<strong>2</strong> other runners are waiting with you") ||
			!strings.Contains(body, "in <strong>about 10 minutes</strong>") {
			t.Fatalf("the room before the opening: %.2000s", body)
		}
		if got := res.Header.Get("Refresh"); !strings.HasPrefix(got, "3") || !strings.HasSuffix(got, "; url="+queue) {
			t.Errorf("Refresh before the opening %q: want about 30 s", got)
		}
		// Three drawn over three seconds from the opening: by then all in.
		clock.Store(opening.Add(3 * time.Second).UnixNano())
		for _, p := range runners {
			res, body := p.Get(queue)
			if got := apptest.WantRedirect(t, res, body); got != "/race/r/"+slug+"/register" {
				t.Fatalf("after the draw: sent to %s", got)
			}
			res, body = p.Get(register)
			apptest.WantStatus(t, res, body, http.StatusOK)
			if !strings.Contains(body, "Hold my place") {
				t.Fatalf("after the draw: %.1000s", body)
			}
		}
	})
}
