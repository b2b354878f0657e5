package results

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/web"
)

// Routes mounts the results pages: the public ones on rt (race's router),
// the director's in admin, race's group of /r/{slug}/admin whose
// middleware has loaded the race and checked its director
// (races.DirectingOf): no handler here checks it again.
func (a *App) Routes(rt, admin *web.Router) {
	// Visitors' results pages and suggestions are everyone's alike:
	// served ahead of sessions; a signed-in director's preview of results
	// not published yet goes through the mux.
	for path, h := range map[string]http.HandlerFunc{
		"/r/{slug}/results":             a.resultsShow,
		"/r/{slug}/results/{eid}":       a.resultsShow,
		"/r/{slug}/results/{eid}/names": a.resultsNames,
	} {
		a.Site.EarlyVisitors(rt.Pattern("GET", path), h)
		rt.Get(path, h)
	}
	// A visitor's cached page, of any page or search, is answered ahead
	// of net/http, with no database query.
	a.Site.HotQuery(rt.Pattern("GET", "/r/{slug}/results"), a.resultsHot)
	a.Site.HotQuery(rt.Pattern("GET", "/r/{slug}/results/{eid}"), a.resultsHot)
	// The director's: the admin group checked the director, DirectedEvent
	// finds the event.
	results := admin.Route("/events/{eid}/results", races.DirectedEvent(a.Site.Error))
	results.Get("", a.resultsAdmin)
	results.Handle(http.MethodPost, "", web.MaxBody(bodyLimit, http.HandlerFunc(a.resultsImport)))
	results.Post("/publish", a.resultsPublish)
	results.Post("/unpublish", a.resultsUnpublish)
}

// URL is the results page of event eventID of race slug.
func URL(slug string, eventID int64) string {
	return races.URL(slug) + "/results/" + strconv.FormatInt(eventID, 10)
}

// How long the shared cache keeps a results page and a list of
// suggestions: a new version (an import, publishing) makes new keys at
// once, so these only bound the memory of keys nobody asks for.
const (
	pageTTL  = 10 * time.Minute
	namesTTL = time.Minute
)

// resultsShow is a page of an event's results, or of a search in them
// ({eid} absent: the race's first event with results). Runners get it from
// the cache, kept under the race's version: a repeated page costs no
// query, and an import or an edit is seen on the next request. A director
// looking at results not published yet gets them uncached.
func (a *App) resultsShow(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	id, err := resultsEvent(r.PathValue("eid"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	q := ParseQuery(r.URL.Query().Get("q"), r.URL.Query().Get("page"), r.URL.Query().Get("after"))
	render := func(ctx context.Context, u *auth.User) (*web.Page, time.Duration, error) {
		v, err := a.svc.Page(ctx, u, slug, id, q)
		if err != nil {
			return nil, 0, err
		}
		var buf bytes.Buffer
		if err := Page(a, v).Render(ctx, &buf); err != nil {
			return nil, 0, err
		}
		return web.NewPage("text/html; charset=utf-8", buf.Bytes(), ""), pageTTL, nil
	}
	err = a.cachedResults(w, r, slug, resultsPageKey(id, q), render)
	if errors.Is(err, ErrNone) {
		a.resultsNotYet(w, r, slug, id)
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
	}
}

// resultsNotYet answers a results page of a published race whose results
// (of event id; 0: of any event) are not out: a page that says so, and
// when the race is (200: the address is right, the results are to come).
// A race or an event that is not there is a 404.
func (a *App) resultsNotYet(w http.ResponseWriter, r *http.Request, slug string, id int64) {
	race, err := a.Races.Published(r.Context(), slug)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	var e *races.Event
	if id != 0 {
		var ok bool
		if e, ok = race.Event(id); !ok {
			a.Site.Error(w, r, errs.ErrNotFound)
			return
		}
	}
	a.Site.Render(w, r, http.StatusOK, NotYetPage(a, race, e, a.Now()))
}

// resultsEvent reads a results page's {eid}: "" is 0, the race's first
// event with results.
func resultsEvent(eid string) (int64, error) {
	if eid == "" {
		return 0, nil
	}
	return races.ParseID(eid)
}

// resultsPageKey is a results page's key in the results cache, under its
// race's slug.
func resultsPageKey(eventID int64, q Query) string {
	return "p/" + strconv.FormatInt(eventID, 10) + "/" + q.key()
}

// resultsHot finds a visitor's results page in the cache, for the site's
// hot lane: the same key and version resultsShow serves it under.
func (a *App) resultsHot(ctx context.Context, req web.HotRequest) (*web.Page, bool) {
	slug := req.Args[0]
	id, err := resultsEvent(req.Args[1])
	if err != nil || !races.ValidSlug(slug) {
		return nil, false
	}
	st, err := a.Versions.Get(ctx, races.VersionScope, slug)
	if err != nil {
		return nil, false
	}
	v := req.Values()
	return a.pages.Hit(slug+"/"+resultsPageKey(id, ParseQuery(v.Get("q"), v.Get("page"), v.Get("after"))), st.V)
}

// resultsNames is the search box's suggestions as JSON: [{name, bib}],
// cached briefly under the race's version.
func (a *App) resultsNames(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	id, err := races.ParseID(r.PathValue("eid"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	q := ParseQuery(r.URL.Query().Get("q"), "", "")
	w.Header().Set("Cache-Control", "public, max-age=60")
	err = a.cachedResults(w, r, slug, "n/"+strconv.FormatInt(id, 10)+"/"+q.key(), func(ctx context.Context, u *auth.User) (*web.Page, time.Duration, error) {
		names, err := a.svc.Suggest(ctx, u, slug, id, q)
		if err != nil {
			return nil, 0, err
		}
		b, err := json.Marshal(names)
		if err != nil {
			return nil, 0, err
		}
		return web.NewPage("application/json", append(b, '\n'), ""), namesTTL, nil
	})
	if err != nil {
		a.Site.Error(w, r, err)
	}
}

// cachedResults serves what render makes for runners (u nil), from the
// results cache under key and the race's version; if runners may not see
// it and the signed-in user directs the race, it serves render's preview
// for them, uncached.
func (a *App) cachedResults(w http.ResponseWriter, r *http.Request, slug, key string,
	render func(ctx context.Context, u *auth.User) (*web.Page, time.Duration, error)) error {
	if !races.ValidSlug(slug) {
		return races.ErrNoRace
	}
	st, err := a.Versions.Get(r.Context(), races.VersionScope, slug)
	if errors.Is(err, errs.ErrNotFound) {
		return races.ErrNoRace
	}
	if err != nil {
		return err
	}
	err = a.pages.Serve(w, r, slug+"/"+key, st.V, func(ctx context.Context) (*web.Page, time.Duration, error) {
		return render(ctx, nil)
	})
	u := auth.UserFrom(r.Context())
	if u == nil || errs.KindOf(err) != errs.NotFound {
		return err
	}
	pg, _, perr := render(r.Context(), u)
	if perr != nil {
		if errors.Is(perr, ErrNone) || errors.Is(perr, races.ErrNoRace) {
			return err // as runners are told
		}
		return perr
	}
	w.Header().Set("Cache-Control", "no-store")
	pg.Serve(w, r)
	return nil
}
