package roar

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
)

// article is roarArticle through the fragment cache. A fragment's key holds
// everything the article shows (counts, names, the viewer's marks), so a
// change of any of it makes a new key and nothing stale is ever served; old
// keys age out. The cache is this process's own: a page assembles up to 200
// fragments, which must cost nanoseconds each, not a network round trip.
func (a *App) article(r *Roar, v *Viewer, class string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		key := fragmentKey(r, v, class)
		if b, ok := a.frags.Get(ctx, key); ok {
			_, err := w.Write(b)
			return err
		}
		var buf bytes.Buffer
		if err := roarArticle(r, v, class).Render(ctx, &buf); err != nil {
			return err
		}
		a.frags.Set(ctx, key, buf.Bytes(), time.Hour)
		_, err := w.Write(buf.Bytes())
		return err
	})
}

func fragmentKey(r *Roar, v *Viewer, class string) string {
	var b strings.Builder
	b.Grow(128)
	b.WriteString("roar:frag:") // the cache is shared with the other apps
	b.WriteString(class)
	writeRoarKey(&b, r)
	t := r.Target()
	if r.RepostOf != nil {
		writeRoarKey(&b, t)
	}
	b.WriteByte('|')
	for _, on := range []bool{v.liked(t.ID), v.reposted(t.ID), v.canRemove(t), v.signedIn() && !v.owns(t)} {
		if on {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	if n := v.hiddenReplies(t.ID); n > 0 {
		b.WriteString("|h")
		b.WriteString(strconv.FormatInt(n, 36))
	}
	return b.String()
}

func writeRoarKey(b *strings.Builder, r *Roar) {
	for _, n := range []int64{r.ID, r.Likes, r.Replies, r.Reposts, r.ReplyTo} {
		b.WriteByte('|')
		b.WriteString(strconv.FormatInt(n, 36))
	}
	for _, s := range []string{r.ReplyToUser, r.Author.Username, r.Author.DisplayName, r.Author.Avatar} {
		b.WriteByte('|')
		b.WriteString(s)
	}
}
