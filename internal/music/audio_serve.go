package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/web"
)

// audioServe is an audio post's file, for the viewer the Service lets see
// the post (anyone else, and a guessed URL: 404), with ranges and
// conditional requests, cached by that browser only
// (media.ServePrivate). On a share link's page its URL carries ?s=TOKEN:
// whoever holds the link hears it too.
func (a *App) audioServe(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	f, err := a.svc.AudioFile(r.Context(), auth.UserFrom(r.Context()), id)
	if token := r.URL.Query().Get("s"); errs.KindOf(err) == errs.NotFound && token != "" {
		f, err = a.svc.AudioFileVia(r.Context(), token, id) // from a share link's page
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	media.ServePrivate(w, r, a.Media.Storage(), f.Key)
}

// audioPlay counts a listen (sent by the player once per listen; never a
// GET): 204, or 404 for a post the viewer may not see.
func (a *App) audioPlay(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		err = a.svc.Play(r.Context(), auth.UserFrom(r.Context()), id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// audioShow is the audio timeline: the audio posts the viewer may see,
// newest first; a visitor's first page is cached.
func (a *App) audioShow(w http.ResponseWriter, r *http.Request) {
	u := auth.UserFrom(r.Context())
	build := func() (*page, error) {
		before, err := web.QueryID(r, "before")
		if err != nil {
			return nil, err
		}
		f, err := a.svc.Audio(r.Context(), u, before)
		if err != nil {
			return nil, err
		}
		return feedPage(r, u, "audio", "Audio", f), nil
	}
	if visitor(r) {
		a.serveVisitor(w, r, "audio", build)
		return
	}
	p, err := build()
	a.render(w, r, p, err)
}
