package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// commentCreate adds my comment to a post, pinned to a moment of an audio
// (at: m:ss) if given. An empty or too long comment, or a moment outside
// the audio, shows the post's page again with the text and the message
// (422); past the rate limit, with the wait (429 and Retry-After).
func (a *App) commentCreate(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		err = web.ParseForm(r, 16<<10)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u, body, at := me(r), r.PostForm.Get("body"), r.PostForm.Get("at")
	ms, ok := parseAt(at)
	var c *Comment
	if !ok {
		err = errs.Fields(map[string]string{"at": "Write the moment as minutes:seconds, like 0:42."})
	} else {
		c, err = a.svc.CommentAt(r.Context(), u, id, body, ms)
	}
	if err != nil {
		e := errs.As(err)
		if (e.Kind != errs.Invalid && e.Kind != errs.TooMany) || web.WantsJSON(r) {
			a.Site.Error(w, r, err)
			return
		}
		p, perr := a.postView(r, u, id, 0)
		if perr != nil {
			a.Site.Error(w, r, perr)
			return
		}
		p.CommentBody, p.CommentErr, p.CommentAt, p.AtErr = body, e.Fields["body"], at, e.Fields["at"]
		if e.Kind == errs.TooMany { // the wait, at the comment kept
			p.CommentErr = e.Message
		}
		a.Site.Render(w, r, web.RefusedStatus(w.Header(), e), a.musicPage(p))
		return
	}
	if web.WantsJSON(r) {
		web.JSON(w, http.StatusCreated, map[string]int64{"post": c.PostID})
		return
	}
	http.Redirect(w, r, web.Back(r, "/music/"), http.StatusSeeOther)
}
