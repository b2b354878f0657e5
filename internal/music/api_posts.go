package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/web"
)

func apiPostURL(id int64) string { return "/music/api/posts/" + itoa(id) }

// apiShare shares a link: 201 with Location and the post. (An audio post
// is uploaded with the page's form.)
func (a *App) apiShare(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	var in struct {
		URL        string `json:"url"`
		Comment    string `json:"comment"`
		Visibility string `json:"visibility"`
	}
	if err := web.DecodeJSON(r, &in); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	id, err := a.svc.Share(r.Context(), u, Draft{URL: in.URL, Comment: in.Comment, Visibility: in.Visibility})
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	p, err := a.svc.Post(r.Context(), u, id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	w.Header().Set("Location", apiPostURL(id))
	web.JSON(w, http.StatusCreated, apiPost(p, true))
}

// apiPostShow is one post the caller may see, with their liked mark.
func (a *App) apiPostShow(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := auth.UserFrom(r.Context())
	p, err := a.svc.Post(r.Context(), u, id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, http.StatusOK, apiPost(p, u != nil))
}

// apiPostDelete deletes a post: its author's, or a moderator.
func (a *App) apiPostDelete(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		err = a.svc.Delete(r.Context(), me(r), id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}

// CommentList is a page of comments, oldest first, with the next page's
// URL, if any.
type CommentList struct {
	Comments []APIComment `json:"comments"`
	Next     string       `json:"next,omitempty"`
}

// apiComments is a page of a post's comments, oldest first (?after=).
func (a *App) apiComments(w http.ResponseWriter, r *http.Request) {
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
	cs, next, err := a.svc.Comments(r.Context(), auth.UserFrom(r.Context()), id, after)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	out := &CommentList{Comments: make([]APIComment, len(cs))}
	for i := range cs {
		out.Comments[i] = apiComment(&cs[i])
	}
	if next != 0 {
		out.Next = nextURL(r, "after", itoa(next))
	}
	web.JSON(w, http.StatusOK, out)
}

// apiComment adds my comment to a post (its original, for a repost): 201
// with the comment.
func (a *App) apiComment(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	var in struct {
		Body string `json:"body"`
	}
	if err := web.DecodeJSON(r, &in); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	c, err := a.svc.Comment(r.Context(), me(r), id, in.Body)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, http.StatusCreated, apiComment(c))
}

// apiLike is PUT (like) and DELETE (unlike): idempotent, so liking twice
// counts once. It answers the like count.
func (a *App) apiLike(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	on := r.Method == http.MethodPut
	n, err := a.svc.Like(r.Context(), me(r), id, on)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, http.StatusOK, map[string]any{"id": id, "liked": on, "likes": n})
}
