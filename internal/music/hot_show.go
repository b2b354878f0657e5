package music

import (
	"hash/fnv"
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/auth"
)

// hotShow is "What's hot": a cloud of the hashtags trending among public
// posts (the board in memory: no query), each linking to its page.
func (a *App) hotShow(w http.ResponseWriter, r *http.Request) {
	u := auth.UserFrom(r.Context())
	build := func() (*page, error) {
		p := &page{Title: "What's hot", Tab: "hot", User: u, Hot: a.svc.Trending()}
		if u != nil {
			var err error
			if p.Unseen, err = a.svc.Unseen(r.Context(), u); err != nil {
				return nil, err
			}
		}
		return p, nil
	}
	if visitor(r) {
		a.serveVisitor(w, r, a.hotKey(), build)
		return
	}
	p, err := build()
	a.render(w, r, p, err)
}

// hotKey is the visitors' page key of "What's hot": the board's tags and
// counts are part of it, since the board changes on its own clock.
func (a *App) hotKey() string {
	h := fnv.New64a()
	for _, t := range a.svc.Trending() {
		h.Write([]byte(t.Tag))
		h.Write([]byte{0, byte(t.Uses), byte(t.Uses >> 8), byte(t.Uses >> 16)})
	}
	return "hot:" + strconv.FormatUint(h.Sum64(), 36)
}
