package roar

import (
	"context"
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// apiPost posts a roar or a reply: 201 with Location and the roar.
func (a *App) apiPost(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	var in struct {
		Body    string `json:"body"`
		ReplyTo int64  `json:"reply_to"`
	}
	if err := web.DecodeJSON(r, &in); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if in.ReplyTo < 0 {
		a.Site.Error(w, r, errs.Fields(map[string]string{"reply_to": "Must be a roar id."}))
		return
	}
	ro, err := a.svc.Post(r.Context(), u, in.Body, in.ReplyTo)
	if err != nil {
		if in.ReplyTo != 0 && errs.KindOf(err) == errs.NotFound {
			// The collection exists; what the body names does not.
			err = errs.Fields(map[string]string{"reply_to": "There is no such roar (it may have been deleted)."})
		}
		a.Site.Error(w, r, err)
		return
	}
	w.Header().Set("Location", apiRoarURL(ro.ID))
	web.JSON(w, http.StatusCreated, apiRoar(ro, &Viewer{User: u}))
}

func apiRoarURL(id int64) string { return "/roar/api/roars/" + itoa(id) }

// apiRoarShow is one roar, with the caller's marks.
func (a *App) apiRoarShow(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	ctx := r.Context()
	ro, err := a.svc.Roar(ctx, id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	v, err := a.svc.Viewer(ctx, auth.UserFrom(ctx), []Roar{*ro})
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, http.StatusOK, apiRoar(ro, v))
}

func (a *App) apiRoarDelete(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	id, err := pathID(r)
	if err == nil {
		err = a.svc.Delete(r.Context(), u, id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	noContent(w)
}

// apiReplies are a roar's replies, oldest first, paged with ?after=.
func (a *App) apiReplies(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	after, err := web.QueryID(r, "after")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	limit, err := queryLimit(r, maxLimit, maxLimit)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	feed, err := a.svc.Replies(r.Context(), auth.UserFrom(r.Context()), id, after, limit)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, http.StatusOK, roarList(r, Query{Thread: id, Since: after, Limit: limit}, feed))
}

// apiThread is what a roar replies to, up the thread, oldest first.
func (a *App) apiThread(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	ctx := r.Context()
	above, err := a.svc.Ancestors(ctx, auth.UserFrom(ctx), id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	out := &RoarList{Roars: make([]*APIRoar, len(above.Roars))}
	for i := range above.Roars {
		out.Roars[i] = apiRoar(&above.Roars[i], above.Viewer)
	}
	web.JSON(w, http.StatusOK, out)
}

// apiToggle is PUT (set) and DELETE (clear) of the caller's like or repost:
// idempotent, so liking twice counts once. It answers the new count.
func (a *App) apiToggle(mark, count string, act func(ctx context.Context, u *auth.User, id int64, on bool) (int64, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u := me(r)
		id, err := pathID(r)
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		on := r.Method == http.MethodPut
		n, err := act(r.Context(), u, id, on)
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		web.JSON(w, http.StatusOK, map[string]any{"id": id, mark: on, count: n})
	}
}

// apiReport files a report to the moderators (once per user and roar).
func (a *App) apiReport(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	var in struct {
		Reason string `json:"reason"`
	}
	if err := web.DecodeJSON(r, &in); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if err := a.svc.Report(r.Context(), u, id, in.Reason); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	noContent(w)
}

func noContent(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}
