package race

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/version"
	"github.com/tutti-dev/tutti/internal/web"
)

// placesEvery is how old the places left on a cached race page may be:
// the page is built again at most this often (the decision itself is the
// database's, at the moment of the claim).
const placesEvery = 5 * time.Second

// pageVersion is a race page's version in the cache: the race's stamp and
// the current placesEvery period, so a page is kept for at most one
// period after which a visitor's request builds the next (once, with
// stampede protection) and a director's edit shows at once.
func pageVersion(st version.Stamp, now time.Time) int64 {
	return st.V<<32 | now.Unix()/int64(placesEvery/time.Second)&(1<<32-1)
}

// raceHot finds a visitor's race page in the cache, for the site's hot
// lane: no database query.
func (a *App) raceHot(ctx context.Context, req web.HotRequest) (*web.Page, bool) {
	slug := req.Args[0]
	if !ValidSlug(slug) {
		return nil, false
	}
	st, err := a.versions.Get(ctx, versionScope, slug)
	if err != nil {
		return nil, false
	}
	return a.pages.Hit(slug, pageVersion(st, a.Now()))
}

func (a *App) raceShow(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	if !ValidSlug(slug) {
		a.Site.Error(w, r, errNoRace)
		return
	}
	st, err := a.versions.Get(r.Context(), versionScope, slug)
	if err != nil {
		a.Site.Error(w, r, errNoRace)
		return
	}
	now := a.Now()
	err = a.pages.Serve(w, r, slug, pageVersion(st, now), func(ctx context.Context) (*web.Page, time.Duration, error) {
		race, err := a.svc.Race(ctx, slug)
		if err != nil {
			return nil, 0, err
		}
		var buf bytes.Buffer
		if err := RacePage(a, race, now).Render(ctx, &buf); err != nil {
			return nil, 0, err
		}
		return web.NewPage("text/html; charset=utf-8", buf.Bytes(), ""), 2 * placesEvery, nil
	})
	if err != nil {
		a.Site.Error(w, r, err)
	}
}

func (a *App) raceList(w http.ResponseWriter, r *http.Request) {
	races, err := a.svc.Upcoming(r.Context())
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, http.StatusOK, RaceListPage(a, auth.UserFrom(r.Context()), races))
}

func (a *App) mine(w http.ResponseWriter, r *http.Request) {
	u, ok := auth.RequireUser(w, r)
	if !ok {
		return
	}
	regs, err := a.svc.Mine(r.Context(), u)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	races, err := a.svc.DirectedBy(r.Context(), u)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	notices, err := a.store.Notices(r.Context(), u.ID)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, http.StatusOK, MinePage(a, u, regs, races, notices, r.URL.Query().Get("released") != "", a.Now()))
}
