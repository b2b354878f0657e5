package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// personRelate does the path's verb to the person: befriend, accept,
// decline, cancel, unfriend, block, unblock, mute, unmute. Unfriending and
// blocking ask first: without confirm=1 the answer is a page that asks,
// whose form sends it.
func (a *App) personRelate(w http.ResponseWriter, r *http.Request) {
	verb, name := r.PathValue("verb"), r.PathValue("name")
	if !Verbs[verb] {
		a.Site.Error(w, r, errs.ErrNotFound)
		return
	}
	if err := web.ParseForm(r, 1<<10); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := me(r)
	if (verb == "unfriend" || verb == "block") && r.PostForm.Get("confirm") != "1" && !web.WantsJSON(r) {
		pe, err := a.svc.Person(r.Context(), u, name, 0)
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		p := &page{Title: "Are you sure?", Tab: "confirm", User: u, Person: pe.Profile, Verb: verb, Unseen: pe.Unseen}
		a.render(w, r, p, nil)
		return
	}
	if err := a.svc.Relate(r.Context(), u, name, verb); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if verb == "unfriend" || verb == "block" {
		http.Redirect(w, r, personURL(name), http.StatusSeeOther)
		return
	}
	web.Done(w, r, "/music/", map[string]bool{"ok": true})
}
