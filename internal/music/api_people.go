package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/text"
	"github.com/tutti-dev/tutti/internal/web"
)

// PeopleList is a page of people with the next page's URL, if any.
type PeopleList struct {
	People []APIUser `json:"people"`
	Next   string    `json:"next,omitempty"`
}

// apiSearch is people search (Service.Search): the people with a name
// word starting with each word of ?q=, oldest first, paginated by ?after=
// (the cursor of the previous page's next URL).
func (a *App) apiSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ps, err := a.svc.Search(r.Context(), auth.UserFrom(r.Context()), text.Query(q.Get("q")), db.ParseCursor(q.Get("after")))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	out := &PeopleList{People: make([]APIUser, len(ps.People))}
	for i := range ps.People {
		out.People[i] = apiUser(ps.People[i].Person)
	}
	if !ps.Next.IsZero() {
		out.Next = nextURL(r, "after", ps.Next.String())
	}
	web.JSON(w, http.StatusOK, out)
}

// apiPerson is a profile with the caller's relation to them.
func (a *App) apiPerson(w http.ResponseWriter, r *http.Request) {
	u := auth.UserFrom(r.Context())
	p, err := a.svc.Relation(r.Context(), u, r.PathValue("username"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, http.StatusOK, apiPerson(p, u != nil))
}

// LinkList is a page of friends or friend requests, with the next page's
// URL, if any.
type LinkList struct {
	People []APILink `json:"people"`
	Next   string    `json:"next,omitempty"`
}

func (a *App) answerLinks(w http.ResponseWriter, r *http.Request, ps *People, err error) {
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	out := &LinkList{People: make([]APILink, len(ps.Links))}
	for i, l := range ps.Links {
		out.People[i] = APILink{APIUser: apiUser(l.Person), Since: l.At.UTC()}
	}
	if !ps.Next.IsZero() {
		out.Next = nextURL(r, "after", ps.Next.String())
	}
	web.JSON(w, http.StatusOK, out)
}

// apiFriends is my friends, newest friendships first (?after=).
func (a *App) apiFriends(w http.ResponseWriter, r *http.Request) {
	after, err := queryCursor(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	ps, err := a.svc.Friends(r.Context(), me(r), after)
	a.answerLinks(w, r, ps, err)
}

// apiRequests is the friend requests I received (incoming) or sent.
func (a *App) apiRequests(incoming bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		after, err := queryCursor(r)
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		ps, err := a.svc.Requests(r.Context(), me(r), incoming, after)
		a.answerLinks(w, r, ps, err)
	}
}

// apiRelate does verb (Service.Relate) to the person in the path and
// answers them with my relation to them now: idempotent, so sending a
// request twice asks once.
func (a *App) apiRelate(verb string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, name := me(r), r.PathValue("username")
		if err := a.svc.Relate(r.Context(), u, name, verb); err != nil {
			a.Site.Error(w, r, err)
			return
		}
		p, err := a.svc.Relation(r.Context(), u, name)
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		web.JSON(w, http.StatusOK, apiPerson(p, true))
	}
}
