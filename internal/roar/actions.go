package roar

import (
	"bytes"
	"context"
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// postCreate posts a roar or a reply from the compose form. Bad input
// re-renders the page with the text kept and the message at the field (422).
func (a *App) postCreate(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	if err := web.ParseForm(r, 64<<10); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	body := r.PostForm.Get("body")
	from := origin(r.PostForm.Get("from"))
	var replyTo int64
	if s := r.PostForm.Get("reply_to"); s != "" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			a.Site.Error(w, r, errs.Fields(map[string]string{"reply_to": "Not a roar id."}))
			return
		}
		replyTo = id
	}
	ro, err := a.svc.Post(r.Context(), u, body, replyTo)
	if err != nil {
		e := errs.As(err)
		if e.Kind != errs.Invalid || web.WantsJSON(r) {
			a.Site.Error(w, r, err)
			return
		}
		// Re-render the page the form was on (a reply: the whole thread,
		// its replies and counts as its own page shows them; a roar: the
		// timeline, tag page or profile it was sent from), with the text
		// as typed and the message.
		ctx := r.Context()
		var p *page
		if replyTo != 0 {
			if focus, ferr := a.svc.Roar(ctx, replyTo); ferr == nil {
				if p, err = a.threadView(r, u, focus, 0); err != nil {
					a.Site.Error(w, r, err)
					return
				}
			}
		}
		if p == nil {
			if p, err = a.originView(r, u, from); err != nil {
				a.Site.Error(w, r, err)
				return
			}
		}
		prompt, on := "What is happening?", ""
		if p.Compose != nil && p.Compose.ReplyTo == replyTo {
			prompt = p.Compose.Prompt
		}
		if p.Compose != nil {
			on = p.Compose.From
		}
		if on == "" && from != nil { // a profile: no form of its own
			on = from.String()
		}
		p.Compose = &compose{Body: body, ReplyTo: replyTo, Error: e.Fields["body"], Prompt: prompt, From: on}
		if p.Compose.Error == "" {
			p.Compose.Error = e.Message
		}
		a.Site.Render(w, r, http.StatusUnprocessableEntity, a.timelinePage(p))
		return
	}
	if web.WantsJSON(r) {
		var buf bytes.Buffer
		roarArticle(ro, nil, "").Render(r.Context(), &buf)
		out := struct {
			*APIRoar
			HTML string `json:"html"`
			// Parent is what a reply replied to, with its counts after it:
			// the page's script shows them at once ("2 replies").
			Parent *APIRoar `json:"parent,omitempty"`
		}{APIRoar: apiRoar(ro, nil), HTML: buf.String()}
		if replyTo != 0 {
			parent, err := a.svc.Roar(r.Context(), replyTo)
			if err != nil {
				a.Site.Error(w, r, err)
				return
			}
			out.Parent = apiRoar(parent, nil)
		}
		web.JSON(w, http.StatusCreated, out)
		return
	}
	if replyTo != 0 {
		http.Redirect(w, r, roarURL(replyTo)+"#r-"+itoa(ro.ID), http.StatusSeeOther)
		return
	}
	to := web.Back(r, "/roar/")
	if from != nil {
		to = from.String()
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// formOn reads the toggle's "on" field: true unless it says false.
func formOn(r *http.Request) (bool, error) {
	if err := web.ParseForm(r, 4<<10); err != nil {
		return false, err
	}
	switch r.PostForm.Get("on") {
	case "", "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, errs.Fields(map[string]string{"on": "Must be true or false."})
}

// toggle answers the like and repost forms: set (on=true) or clear the
// viewer's mark with act, then answer the mark and the new count
// ({"liked": true, "likes": 3}) to scripts, or go back for a plain form.
func (a *App) toggle(mark, count string, act func(ctx context.Context, u *auth.User, id int64, on bool) (int64, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u := me(r)
		id, err := pathID(r)
		if err == nil {
			var on bool
			if on, err = formOn(r); err == nil {
				var n int64
				if n, err = act(r.Context(), u, id, on); err == nil {
					web.Done(w, r, "/roar/", map[string]any{"id": id, mark: on, count: n})
					return
				}
			}
		}
		a.Site.Error(w, r, err)
	}
}

func (a *App) roarDelete(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	id, err := pathID(r)
	if err == nil {
		if err = a.svc.Delete(r.Context(), u, id); err == nil {
			if web.WantsJSON(r) {
				noContent(w)
				return
			}
			to := web.Back(r, "/roar/")
			if to == roarURL(id) {
				to = "/roar/"
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
	}
	a.Site.Error(w, r, err)
}

func (a *App) relationSet(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	verb := r.PathValue("verb")
	if verb != "follow" && verb != "mute" && verb != "block" {
		a.Site.NotFound(w, r)
		return
	}
	on, err := formOn(r)
	if err == nil {
		if err = a.svc.Relate(r.Context(), u, r.PathValue("name"), verb, on); err == nil {
			web.Done(w, r, "/roar/", map[string]any{verb: on})
			return
		}
	}
	a.Site.Error(w, r, err)
}

func (a *App) reportForm(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	ro, err := a.svc.Roar(r.Context(), id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	v, err := a.svc.Viewer(r.Context(), u)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, http.StatusOK, a.reportPage(&page{Title: "Report", Tab: "report", Viewer: v}, ro, "", ""))
}

func (a *App) reportCreate(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	id, err := pathID(r)
	if err == nil {
		err = web.ParseForm(r, 16<<10)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	reason := r.PostForm.Get("reason")
	if err := a.svc.Report(r.Context(), u, id, reason); err != nil {
		e := errs.As(err)
		if e.Kind != errs.Invalid || web.WantsJSON(r) {
			a.Site.Error(w, r, err)
			return
		}
		ro, rerr := a.svc.Roar(r.Context(), id)
		v, verr := a.svc.Viewer(r.Context(), u)
		if rerr != nil || verr != nil {
			a.Site.Error(w, r, err)
			return
		}
		a.Site.Render(w, r, http.StatusUnprocessableEntity,
			a.reportPage(&page{Title: "Report", Tab: "report", Viewer: v}, ro, reason, e.Fields["reason"]))
		return
	}
	if web.WantsJSON(r) {
		noContent(w)
		return
	}
	http.Redirect(w, r, roarURL(id)+"?reported=1", http.StatusSeeOther)
}

func (a *App) reportDismiss(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	id, err := pathID(r)
	if err == nil {
		if err = a.svc.Dismiss(r.Context(), u, id); err == nil {
			web.Done(w, r, "/roar/", map[string]any{"id": id, "dismissed": true})
			return
		}
	}
	a.Site.Error(w, r, err)
}

func (a *App) reportsShow(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	reports, err := a.svc.Reports(r.Context(), u)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	v, err := a.svc.Viewer(r.Context(), u)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, http.StatusOK, a.reportsPage(&page{Title: "Reports", Tab: "reports", Viewer: v, Reports: reports}))
}

// notificationsShow lists the notifications. Reading them changes nothing
// (a link from another site must not clear the unread count): the page's
// script marks them seen with a POST, and so does its button without one.
func (a *App) notificationsShow(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	before, err := web.QueryID(r, "before")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	ctx := r.Context()
	notes, next, err := a.svc.Notifications(ctx, u, before, notesPageSize)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	v, err := a.svc.Viewer(ctx, u)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	p := &page{Title: "Notifications", Tab: "notifications", Viewer: v}
	if next != 0 {
		p.Older = "/roar/notifications?before=" + itoa(next)
	}
	p.Notes = notes
	a.Site.Render(w, r, http.StatusOK, a.notificationsPage(p))
}

// notificationsSeen marks the notifications up to ?up_to= as seen: the
// unread count to a script ({"unread": 0}), back to the list for a form.
func (a *App) notificationsSeen(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	if err := web.ParseForm(r, 4<<10); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	upTo, err := strconv.ParseInt(r.PostForm.Get("up_to"), 10, 64)
	if err != nil || upTo <= 0 {
		a.Site.Error(w, r, errs.E(errs.Invalid, "Reload the page and try again: the form did not say which notifications to mark as read."))
		return
	}
	ctx := r.Context()
	if err := a.svc.MarkSeen(ctx, u, upTo); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if web.WantsJSON(r) {
		unread, err := a.svc.Unread(ctx, u)
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		web.JSON(w, http.StatusOK, map[string]int64{"unread": unread})
		return
	}
	http.Redirect(w, r, "/roar/notifications", http.StatusSeeOther)
}
