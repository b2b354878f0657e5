package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// commentCreate adds my comment to a post. An empty or too long comment
// shows the post's page again with the text and the message (422).
func (a *App) commentCreate(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		err = web.ParseForm(r, 16<<10)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u, body := me(r), r.PostForm.Get("body")
	post, err := a.svc.Comment(r.Context(), u, id, body)
	if err != nil {
		e := errs.As(err)
		if e.Kind != errs.Invalid || web.WantsJSON(r) {
			a.Site.Error(w, r, err)
			return
		}
		p, perr := a.postView(r, u, id, 0)
		if perr != nil {
			a.Site.Error(w, r, perr)
			return
		}
		p.CommentBody, p.CommentErr = body, e.Fields["body"]
		a.Site.Render(w, r, http.StatusUnprocessableEntity, a.musicPage(p))
		return
	}
	if web.WantsJSON(r) {
		web.JSON(w, http.StatusCreated, map[string]int64{"post": post})
		return
	}
	http.Redirect(w, r, web.Back(r, "/music/"), http.StatusSeeOther)
}
