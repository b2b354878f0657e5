package music

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
)

// card is postCard through the fragment cache ("Russian doll": a page
// wraps the cards). A card's key holds the post and its last change (its
// counts and changed_at, which a comment, a like or comments turned off
// move), its author's name and picture, the ids and authors of the
// comments it shows, and the viewer's flags (signed in, liked, own,
// moderator): the same card serves every viewer with those flags, and any
// change makes a new key, so nothing stale is ever served; old keys age
// out. The cache is this process's own (a page has up to 20 cards).
func (a *App) card(p *page, post *Post) templ.Component {
	f := p.flags(post.Target())
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		key := cardKey(post, f)
		if b, ok := a.frags.Get(ctx, key); ok {
			_, err := w.Write(b)
			return err
		}
		var buf bytes.Buffer
		if err := postCard(post, f, post.Target().Recent).Render(ctx, &buf); err != nil {
			return err
		}
		a.frags.Set(ctx, key, buf.Bytes(), time.Hour)
		_, err := w.Write(buf.Bytes())
		return err
	})
}

func cardKey(p *Post, f flags) string {
	var b strings.Builder
	b.Grow(160)
	b.WriteString("music:card")
	writePostKey(&b, p)
	if p.RepostOf != nil {
		writePostKey(&b, p.RepostOf)
	}
	b.WriteByte('|')
	for _, on := range []bool{f.SignedIn, f.Liked, f.Own, f.Moderator} {
		if on {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	for _, c := range p.Target().Recent {
		b.WriteByte('|')
		b.WriteString(strconv.FormatInt(c.ID, 36))
		b.WriteByte(':')
		b.WriteString(c.Author.Username)
		b.WriteByte(':')
		b.WriteString(c.Author.DisplayName)
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(c.AtMS, 36))
	}
	return b.String()
}

func writePostKey(b *strings.Builder, p *Post) {
	for _, n := range []int64{p.ID, p.ChangedAt, p.Likes, p.Comments, p.Reposts, p.Plays, p.DurationMS} {
		b.WriteByte('|')
		b.WriteString(strconv.FormatInt(n, 36))
	}
	for _, s := range []string{p.Author.Username, p.Author.DisplayName, p.Author.Avatar} {
		b.WriteByte('|')
		b.WriteString(s)
	}
}
