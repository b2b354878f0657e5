package music

import (
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/live"
)

// stream is my live notifications as Server-Sent Events: "notify" with my
// unread count whenever a comment, like, repost or friend request reaches
// me (the header's badge). Only my own events reach my streams: the
// stream's key is my id.
func (a *App) stream(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	s := live.Stream[Event]{Key: strconv.FormatInt(u.ID, 10)}
	if err := a.hub.Serve(w, r, s); err != nil {
		a.Site.Error(w, r, err)
	}
}
