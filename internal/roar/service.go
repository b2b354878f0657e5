package roar

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/text"
)

// The actions below are roar's service layer, shared by the HTML handlers and
// the API: each checks who may do it, writes through the group commit, and
// publishes the live event once the write is committed.

var errSignIn = errs.E(errs.Unauthorized, "Please sign in first.")

func (a *App) limit(ctx context.Context, u *auth.User) error {
	if a.PostLimit == nil {
		return nil
	}
	if ok, wait := a.PostLimit.Allow(ctx, "roar:"+itoa(u.ID)); !ok {
		return errs.Slow(wait, "You are roaring too fast; please wait %d seconds.", int(wait.Seconds())+1)
	}
	return nil
}

// Post writes a roar (or a reply) by u and returns it.
func (a *App) Post(ctx context.Context, u *auth.User, body string, replyTo int64) (*Roar, error) {
	if u == nil {
		return nil, errSignIn
	}
	body, err := CleanBody(body)
	if err != nil {
		return nil, err
	}
	if err := a.limit(ctx, u); err != nil {
		return nil, err
	}
	return a.insert(ctx, Post{Author: u.ID, Body: body, ReplyTo: replyTo})
}

// Repost sets whether u reposts roar id and returns its repost count. It is
// idempotent: reposting what u already reposted changes nothing and does not
// count against the rate limit.
func (a *App) Repost(ctx context.Context, u *auth.User, id int64, on bool) (int64, error) {
	if u == nil {
		return 0, errSignIn
	}
	if !on {
		var gone int64
		if err := a.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
			gone, err = a.store.unrepost(ctx, tx, id, u.ID)
			return err
		}); err != nil {
			return 0, err
		}
		if gone != 0 {
			a.publish(&Event{Type: "delete", ID: gone, Gone: []int64{gone}})
			a.publishCounts(ctx, id)
		}
		return a.reposts(ctx, id)
	}
	if done, err := a.store.Reposted(ctx, u.ID, []int64{id}); err != nil || done[id] {
		if err != nil {
			return 0, err
		}
		return a.reposts(ctx, id)
	}
	if err := a.limit(ctx, u); err != nil {
		return 0, err
	}
	r, err := a.insert(ctx, Post{Author: u.ID, RepostOf: id})
	if errs.KindOf(err) == errs.Conflict { // reposted meanwhile, by another request
		return a.reposts(ctx, id)
	}
	if err != nil {
		return 0, err
	}
	a.publishCounts(ctx, id)
	return r.RepostOf.Reposts, nil
}

func (a *App) reposts(ctx context.Context, id int64) (int64, error) {
	r, err := a.store.Roar(ctx, id)
	if err != nil {
		return 0, err
	}
	return r.Reposts, nil
}

func (a *App) insert(ctx context.Context, p Post) (*Roar, error) {
	var id int64
	var sent notified
	if err := a.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		sent = sent[:0] // a batch that failed runs each write again alone
		id, err = a.store.insert(ctx, tx, p, &sent)
		return err
	}); err != nil {
		return nil, err
	}
	a.publishUnread(ctx, sent)
	r, err := a.store.Roar(ctx, id)
	if err != nil {
		return nil, err
	}
	a.publish(a.roarEvent(ctx, r))
	if p.ReplyTo != 0 {
		a.publishCounts(ctx, p.ReplyTo)
	}
	return r, nil
}

// Like sets whether u likes roar id and returns its like count.
func (a *App) Like(ctx context.Context, u *auth.User, id int64, on bool) (int64, error) {
	if u == nil {
		return 0, errSignIn
	}
	var likes int64
	var sent notified
	err := a.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		sent = sent[:0]
		likes, err = a.store.like(ctx, tx, id, u.ID, on, &sent)
		return err
	})
	if err != nil {
		return 0, err
	}
	a.publishUnread(ctx, sent)
	a.publish(&Event{Type: "like", ID: id, Likes: likes})
	return likes, nil
}

// Delete removes roar id: its author or a moderator only.
func (a *App) Delete(ctx context.Context, u *auth.User, id int64) error {
	if u == nil {
		return errSignIn
	}
	var gone []int64
	var parent *Roar
	if r, err := a.store.Roar(ctx, id); err == nil && (r.ReplyTo != 0 || r.RepostOf != nil) {
		parent = r
	}
	if err := a.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		gone, err = a.store.remove(ctx, tx, id, u.ID, u.Moderator)
		return err
	}); err != nil {
		return err
	}
	a.publish(&Event{Type: "delete", ID: id, Gone: gone})
	if parent != nil {
		a.publishCounts(ctx, parent.ReplyTo)
		if parent.RepostOf != nil {
			a.publishCounts(ctx, parent.RepostOf.ID)
		}
	}
	return nil
}

// Relate sets whether u follows, mutes or blocks username.
func (a *App) Relate(ctx context.Context, u *auth.User, username, kind string, on bool) error {
	if u == nil {
		return errSignIn
	}
	p, err := a.store.Profile(ctx, username, u.ID)
	if err != nil {
		return err
	}
	var sent notified
	if err := a.write(ctx, func(ctx context.Context, tx *db.Tx) error {
		sent = sent[:0]
		return a.store.relate(ctx, tx, u.ID, p.ID, kind, on, &sent)
	}); err != nil {
		return err
	}
	a.publishUnread(ctx, sent)
	return nil
}

// reasonField is the rule for a report's reason (package text).
var reasonField = text.Field{Name: "The reason", Min: 1, Max: 1000, Multiline: true,
	Empty: "Say what is wrong with this roar."}

// Report files u's report of roar id.
func (a *App) Report(ctx context.Context, u *auth.User, id int64, reason string) error {
	if u == nil {
		return errSignIn
	}
	reason, msg := reasonField.Clean(reason)
	if msg != "" {
		return errs.Fields(map[string]string{"reason": msg})
	}
	if _, err := a.store.Roar(ctx, id); err != nil {
		return err
	}
	return a.write(ctx, func(ctx context.Context, tx *db.Tx) error { return a.store.report(ctx, tx, id, u.ID, reason) })
}

// errModerators refuses what only moderators may do or see.
var errModerators = errs.E(errs.Forbidden, "Only moderators can do that.")

// Reports are the open reports, most reported first (at most 100):
// moderators only.
func (a *App) Reports(ctx context.Context, u *auth.User) ([]Report, error) {
	if u == nil || !u.Moderator {
		return nil, errModerators
	}
	return a.store.Reports(ctx, 100)
}

// Dismiss closes the reports of roar id: moderators only.
func (a *App) Dismiss(ctx context.Context, u *auth.User, id int64) error {
	if u == nil || !u.Moderator {
		return errModerators
	}
	return a.write(ctx, func(ctx context.Context, tx *db.Tx) error { return a.store.dismiss(ctx, tx, id) })
}

// MarkSeen marks u's notifications up to id as seen.
func (a *App) MarkSeen(ctx context.Context, u *auth.User, upTo int64) error {
	if u == nil {
		return errSignIn
	}
	if err := a.write(ctx, func(ctx context.Context, tx *db.Tx) error { return a.store.markSeen(ctx, tx, u.ID, upTo) }); err != nil {
		return err
	}
	a.publishUnread(ctx, notified{u.ID}) // the badge of u's other tabs
	return nil
}

// newest returns the public timeline's first page (200 roars and one more to
// know whether there are older), cached at the current version: decoded in
// this process, encoded in the shared cache.
func (a *App) newest(ctx context.Context) ([]Roar, error) {
	v, err := a.currentVersion(ctx)
	if err != nil {
		return nil, err
	}
	if roars, ok := a.decoded.get("newest", v); ok {
		return roars.([]Roar), nil
	}
	b, err := a.Cache.Fetch(ctx, cacheKey(v, "newest"), func(ctx context.Context) ([]byte, time.Duration, error) {
		roars, err := a.store.Timeline(ctx, Query{Limit: pageSize + 1})
		if err != nil {
			return nil, 0, err
		}
		b, err := json.Marshal(roars)
		return b, versionTTL, err
	})
	if err != nil {
		return nil, err
	}
	var roars []Roar
	if err := json.Unmarshal(b, &roars); err != nil {
		return nil, fmt.Errorf("roar: cached timeline: %w", err)
	}
	a.decoded.put("newest", v, roars)
	return roars, nil
}

// pageSize is the length of a timeline page: the seed's newest 200.
const pageSize = 200

// timeline returns a page of q (pageSize by default) and the cursor of the next.
func (a *App) timeline(ctx context.Context, q Query) ([]Roar, int64, error) {
	if q.Limit == 0 {
		q.Limit = pageSize
	}
	n := q.Limit
	q.Limit++
	var roars []Roar
	var err error
	if q == (Query{Limit: pageSize + 1}) {
		roars, err = a.newest(ctx)
	} else {
		roars, err = a.store.Timeline(ctx, q)
	}
	if err != nil {
		return nil, 0, err
	}
	roars, next := db.Trim(roars, n, roarCursor)
	return roars, next.ID, nil
}

// roarCursor is a roar's keyset position: its id (roar pages by id).
func roarCursor(r Roar) db.Cursor { return db.Cursor{ID: r.ID} }

// noteCursor is a notification's keyset position: its id.
func noteCursor(n Notification) db.Cursor { return db.Cursor{ID: n.ID} }

// Page sizes of the thread and notification pages.
const (
	threadPageSize = 100
	notesPageSize  = 50
)

// viewerOf loads what marks roars for u: likes, reposts, blocks and mutes,
// unseen notifications. A fixed number of queries, whatever the page size.
func (a *App) viewerOf(ctx context.Context, u *auth.User, roars ...[]Roar) (*viewer, error) {
	v := &viewer{User: u}
	if u == nil {
		return v, nil
	}
	var ids []int64
	for _, list := range roars {
		for i := range list {
			ids = append(ids, list[i].Target().ID)
		}
	}
	var err error
	if v.Liked, err = a.store.Liked(ctx, u.ID, ids); err != nil {
		return nil, err
	}
	if v.Reposted, err = a.store.Reposted(ctx, u.ID, ids); err != nil {
		return nil, err
	}
	if v.Rel, err = a.store.Relations(ctx, u.ID); err != nil {
		return nil, err
	}
	if v.Unseen, err = a.store.Unseen(ctx, u.ID); err != nil {
		return nil, err
	}
	return v, nil
}

// roarEvent is the live event of a new roar: rendered once, for everyone.
func (a *App) roarEvent(ctx context.Context, r *Roar) *Event {
	var buf bytes.Buffer
	if err := roarArticle(r, nil, "").Render(ctx, &buf); err != nil {
		a.Log.Error("roar: render event", "err", err)
	}
	e := &Event{Type: "roar", ID: r.ID, Author: r.Author.ID, ReplyTo: r.ReplyTo, HTML: buf.String(),
		Roar: apiRoar(r, nil), At: r.CreatedAt.UnixMilli()}
	if r.RepostOf != nil {
		e.Origin = r.RepostOf.Author.ID
	}
	return e
}

// publishCounts sends the current counts of roar id (after a reply or repost).
func (a *App) publishCounts(ctx context.Context, id int64) {
	if id == 0 {
		return
	}
	if r, err := a.store.Roar(ctx, id); err == nil {
		a.publish(&Event{Type: "counts", ID: id, Likes: r.Likes, Roar: apiRoar(r, nil)})
	}
}

// publishUnread sends each user their unread count ("notify" events go to
// that user's streams only: the badge updates live).
func (a *App) publishUnread(ctx context.Context, users notified) {
	for _, id := range users {
		n, err := a.store.Unseen(ctx, id)
		if err != nil {
			a.Log.Warn("roar: unread count", "user", id, "err", err)
			continue
		}
		a.publish(&Event{Type: "notify", ID: id, Unread: &n})
	}
}

// publish sends e on the bus, to the streams of every instance. It is only
// called after the write is committed: a client that hears of a roar can read it.
func (a *App) publish(e *Event) {
	if err := a.hub.Publish(e); err != nil {
		a.Log.Warn("roar: publish", "type", e.Type, "id", e.ID, "err", err)
	}
}
