package waitlist

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/race/races"
)

// soldOut is an event's sold-out page (or its lottery's): its list, and
// the runner's place in it or invitation from it.
func (a *App) soldOut(w http.ResponseWriter, r *http.Request) {
	race, err := a.Races.Published(r.Context(), r.PathValue("slug"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	id, _ := races.ParseID(r.PathValue("eid"))
	// The counts as they are: the cached race's may be seconds old, and
	// the runner came here because the claim found no place.
	e, err := a.svc.event(r.Context(), race, id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := auth.UserFrom(r.Context())
	we, err := a.svc.Entry(r.Context(), u, e.ID)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, http.StatusOK, SoldOutPage(a, u, race, e, we, flashWait(r, e), a.Now()))
}

// flashWait is the sold-out (or lottery) page's ?done= message after a
// redirect.
func flashWait(r *http.Request, e *races.Event) string {
	switch r.URL.Query().Get("done") {
	case "joined":
		return "You are on the list. We will e-mail you when a place is yours."
	case "entered":
		return "You are in the draw. We will e-mail you if the draw picks you."
	case "left":
		switch {
		case e.Lottery && e.DrawnAt == nil:
			return "You have withdrawn from the lottery."
		case e.Lottery:
			return "You are off the list."
		}
		return "You are off the waiting list."
	case "declined":
		return "You gave up the place: it goes to the next runner on the list."
	}
	return ""
}

// waitlistPost joins the {eid} event's waiting list (leave=1: leaves it).
func (a *App) waitlistPost(w http.ResponseWriter, r *http.Request) {
	u := auth.UserFrom(r.Context())
	if !a.form(w, r) {
		return
	}
	race, err := a.Races.Published(r.Context(), r.PathValue("slug"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	id, err := races.ParseID(r.PathValue("eid"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	done := "joined"
	if r.PostForm.Get("leave") == "1" {
		// A place kept for the runner is given up, not a place in line.
		done = "left"
		if we, werr := a.svc.Entry(r.Context(), u, id); werr == nil && we != nil && we.Status == "invited" {
			done = "declined"
		}
		err = a.svc.Leave(r.Context(), u, id)
	} else {
		err = a.svc.Join(r.Context(), u, race, id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	back := SoldOutURL(race.Slug, id)
	if e, ok := race.Event(id); ok && e.Lottery {
		back = LotteryURL(race.Slug, id)
		if done == "joined" && e.DrawnAt == nil {
			done = "entered"
		}
	}
	http.Redirect(w, r, back+"?done="+done, http.StatusSeeOther)
}

// invitationPost takes the place a waiting list's invitation kept: race's
// registration goes on with it (Races.Take).
func (a *App) invitationPost(w http.ResponseWriter, r *http.Request) {
	if !a.form(w, r) {
		return
	}
	id, err := races.ParseID(r.PathValue("eid"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	next, err := a.Races.Take(r.Context(), auth.UserFrom(r.Context()), r.PathValue("slug"), id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}
