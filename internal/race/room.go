package race

import (
	"net/http"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/room"
	"github.com/tutti-dev/tutti/internal/web"
)

// The waiting room (internal/room) stands in front of the wizard: a
// signed-in runner who opens the registration takes a ticket; if it is not
// their turn, they wait on the room's page, which refreshes itself until it
// is and reads no session (the ticket, the cached race, and for an early
// ticket the size of its crowd). Before an opening, the ticket waits
// for it and its holder's place is drawn then. Holding a place (POST
// register) needs a ticket whose turn has come: a bot cannot skip the room.

// roomCookie holds the runner's ticket, one per race (its path).
const roomCookie = "tutti_room"

// MaxRoomRefresh bounds how long the room's page waits before looking again.
const MaxRoomRefresh = 30 * time.Second

func roomURL(slug string) string { return raceURL(slug) + "/queue" }

// openings are the race's latest opening at or before now and its next
// one after (zero if none). While one of its events is open, nobody waits
// for another's opening: next is zero then.
func openings(r *Race, now time.Time) (last, next time.Time) {
	open := false
	for _, e := range r.Events {
		switch o := e.OpensAt; {
		case !o.After(now):
			last = later(last, o)
			open = open || now.Before(e.ClosesAt)
		case next.IsZero() || o.Before(next):
			next = o
		}
	}
	if open {
		next = time.Time{}
	}
	return last, next
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (a *App) ticket(r *http.Request, slug string) (room.Ticket, bool) {
	c, err := r.Cookie(roomCookie)
	if err != nil || a.Rooms == nil {
		return room.Ticket{}, false
	}
	t, ok := a.Rooms.Decode(c.Value)
	return t, ok && t.Room == slug
}

// admitted reports whether u may go on into race's wizard: no room, or a
// ticket whose turn has come. Otherwise it joins u (keeping a ticket still
// waiting) and sends them to the room's page, and reports false.
func (a *App) admitted(w http.ResponseWriter, r *http.Request, race *Race, u *auth.User, ev int64) bool {
	if a.Rooms == nil {
		return true
	}
	ctx, now := r.Context(), a.Now()
	if t, ok := a.ticket(r, race.Slug); ok && t.User == u.ID && validOpening(race, t) {
		p, err := a.Rooms.Where(ctx, t, now)
		if err != nil {
			a.Site.Error(w, r, err)
			return false
		}
		switch {
		case a.Rooms.Pass(p, now):
			a.keepPass(w, r, race, t, p, now)
			return true
		case !p.In(now): // still waiting
			a.toRoom(w, r, race, t, p, now, ev)
			return false
		} // else the pass has run out: join again
	}
	if a.JoinLimit != nil {
		if ok, wait := a.JoinLimit.Allow(ctx, race.Slug+"/"+strconv.FormatInt(u.ID, 10)); !ok {
			a.Site.Error(w, r, errs.Slow(wait, "You have opened this race's registration several times in a few seconds without its queue ticket (from another browser, or with cookies cleared), and each time goes to the back of the queue. Try again in %d seconds, from one browser.", int(wait.Round(time.Second)/time.Second)+1))
			return false
		}
	}
	last, next := openings(race, now)
	t, p, err := a.Rooms.Enter(ctx, race.Slug, u.ID, now, last, next)
	if err != nil {
		a.Site.Error(w, r, err)
		return false
	}
	if !t.Early() && a.Rooms.Pass(p, now) { // no crowd: in at once
		a.keepPass(w, r, race, t, p, now)
		return true
	}
	// The cookie lasts as long as the ticket can let its holder in: for an
	// early one, the opening plus a day for the crowd to be let in; else
	// its turn should the room slow to its slowest pace.
	until := p.Latest
	if t.Early() {
		until = t.Opening.Add(24 * time.Hour)
	}
	a.setTicket(w, r, race.Slug, t, until.Sub(now)+a.Rooms.PassFor)
	a.toRoom(w, r, race, t, p, now, ev)
	return false
}

// keepPass makes the ticket t, whose turn has come at p, a pass
// (room.Rooms.Admit) in the runner's cookie, once: from then on no read of
// the room's clock, on this instance or another, sends them back to the
// line for as long as the pass lasts.
func (a *App) keepPass(w http.ResponseWriter, r *http.Request, race *Race, t room.Ticket, p room.Place, now time.Time) {
	if t.Admitted() {
		return
	}
	a.setTicket(w, r, race.Slug, a.Rooms.Admit(t, p), p.At.Add(a.Rooms.PassFor).Sub(now))
}

// setTicket sets the runner's cookie for race slug to t, for life.
func (a *App) setTicket(w http.ResponseWriter, r *http.Request, slug string, t room.Ticket, life time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: roomCookie, Value: a.Rooms.Encode(t), Path: raceURL(slug),
		MaxAge: max(int(life.Seconds()), 1), HttpOnly: true, Secure: web.IsHTTPS(r), SameSite: http.SameSiteLaxMode})
}

// toRoom sends a runner whose turn has not come to the room: a GET gets
// the room's page at once (in an opening rush, a redirect to it would be
// one more request per arrival for the core to serve), a POST a redirect
// to it.
func (a *App) toRoom(w http.ResponseWriter, r *http.Request, race *Race, t room.Ticket, p room.Place, now time.Time, ev int64) {
	if r.Method != http.MethodGet {
		a.redirect(w, r, roomURL(race.Slug)+eventQuery(ev))
		return
	}
	a.showRoom(w, r, race, t, p, now, ev)
}

// validOpening reports whether an early ticket still waits for one of
// the race's openings (a director may have moved it).
func validOpening(race *Race, t room.Ticket) bool {
	if !t.Early() {
		return true
	}
	for _, e := range race.Events {
		if e.OpensAt.Equal(t.Opening) {
			return true
		}
	}
	return false
}

func eventQuery(ev int64) string {
	if ev <= 0 {
		return ""
	}
	return "?event=" + strconv.FormatInt(ev, 10)
}

// roomShow is the room's page (served ahead of sessions: it reads the
// ticket alone). A ticket whose turn has come goes on to the wizard; no
// ticket, to the wizard's first page, which gives one.
func (a *App) roomShow(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	ev := queryEvent(r.URL.Query().Get("event"))
	next := raceURL(slug) + "/register" + eventQuery(ev)
	t, ok := a.ticket(r, slug)
	if !ok || !ValidSlug(slug) {
		a.redirect(w, r, next)
		return
	}
	race, err := a.svc.Race(r.Context(), slug)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	now := a.Now()
	p, err := a.Rooms.Where(r.Context(), t, now)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if p.In(now) || !validOpening(race, t) {
		if a.Rooms.Pass(p, now) && validOpening(race, t) && !t.Admitted() {
			// The turn has come here: the wizard's next request, on any
			// instance, lets the runner in without reading the clock again.
			a.keepPass(w, r, race, t, p, now)
		}
		a.redirect(w, r, next)
		return
	}
	a.showRoom(w, r, race, t, p, now, ev)
}

// showRoom is the room's page for ticket t, at place p: it refreshes
// itself at the room's address.
func (a *App) showRoom(w http.ResponseWriter, r *http.Request, race *Race, t room.Ticket, p room.Place, now time.Time, ev int64) {
	slug := race.Slug
	// Look again when the turn comes, or sooner to show the place; spread
	// by the runner so that a crowd does not refresh in step (the early
	// crowd's last look before the opening too: their draw spreads them
	// after it).
	spread := time.Duration(t.User%5000) * time.Millisecond
	wait := p.At.Sub(now)
	if p.At.IsZero() { // before the opening
		wait = t.Opening.Sub(now) + spread
	}
	refresh := min(wait, MaxRoomRefresh+spread)
	secs := int((refresh + time.Second - 1) / time.Second)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Refresh", strconv.Itoa(secs)+"; url="+roomURL(slug)+eventQuery(ev))
	a.Site.Render(w, r, http.StatusOK, RoomPage(a, race, t, p, wait, secs, ev))
}

// aboutWait is a wait in words.
func aboutWait(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return "a few seconds"
	case d < 90*time.Second:
		return "about " + strconv.Itoa(int((d+5*time.Second)/(10*time.Second))*10) + " seconds"
	case d < 90*time.Minute:
		return "about " + strconv.Itoa(int((d+30*time.Second)/time.Minute)) + " minutes"
	}
	return "about " + strconv.Itoa(int((d+30*time.Minute)/time.Hour)) + " hours"
}

// plural is one or many, by n.
func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
