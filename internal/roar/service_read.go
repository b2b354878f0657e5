package roar

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unsafe"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
)

// pageSize is the length of a timeline page: the seed's newest 200.
const pageSize = 200

// Page sizes of the thread and notification pages.
const (
	threadPageSize = 100
	notesPageSize  = 50
)

// Feed is a page of roars as a viewer sees them.
type Feed struct {
	Roars  []Roar
	Viewer *Viewer
	Next   int64 // the cursor of the next page (0: none): before= newest first, since= or after= oldest first
}

// Roar returns roar id (NotFound if there is none).
func (s *Service) Roar(ctx context.Context, id int64) (*Roar, error) { return s.store.Roar(ctx, id) }

// Timeline returns the page q selects (pageSize roars unless q.Limit says)
// as u (nil: a visitor) sees it. The public timeline's first page comes
// from the cache (newest). A fixed number of queries whatever its length;
// the roars of authors u does not see are in it, for the caller to leave
// out (Viewer.Rel.Hides) or show as such.
func (s *Service) Timeline(ctx context.Context, u *auth.User, q Query) (*Feed, error) {
	roars, next, err := s.timeline(ctx, q, u == nil)
	if err != nil {
		return nil, err
	}
	v, err := s.Viewer(ctx, u, roars)
	if err != nil {
		return nil, err
	}
	return &Feed{Roars: roars, Viewer: v, Next: next}, nil
}

// Replies returns a page of roar id's replies, oldest first, after the
// reply after (0: from the first), at most limit (0: pageSize).
func (s *Service) Replies(ctx context.Context, u *auth.User, id, after int64, limit int) (*Feed, error) {
	if _, err := s.store.Roar(ctx, id); err != nil {
		return nil, err
	}
	return s.Timeline(ctx, u, Query{Thread: id, Since: after, Limit: limit})
}

// Ancestors returns what roar id replies to, up the thread, oldest first.
func (s *Service) Ancestors(ctx context.Context, u *auth.User, id int64) (*Feed, error) {
	if _, err := s.store.Roar(ctx, id); err != nil {
		return nil, err
	}
	above, err := s.store.Ancestors(ctx, id)
	if err != nil {
		return nil, err
	}
	v, err := s.Viewer(ctx, u, above)
	if err != nil {
		return nil, err
	}
	return &Feed{Roars: above, Viewer: v}, nil
}

// Thread is a roar with what it replies to and a page of its replies.
type Thread struct {
	Focus   *Roar
	Above   []Roar // what Focus replies to, oldest first
	Replies []Roar // oldest first
	Next    int64  // the cursor (after=) of the next page of replies; 0: none
	Viewer  *Viewer
}

// Thread returns focus's thread as u sees it, with the replies after the
// reply after (0: from the first), threadPageSize at a time.
func (s *Service) Thread(ctx context.Context, u *auth.User, focus *Roar, after int64) (*Thread, error) {
	above, err := s.store.Ancestors(ctx, focus.ID)
	if err != nil {
		return nil, err
	}
	replies, err := s.store.Timeline(ctx, Query{Thread: focus.ID, Since: after, Limit: threadPageSize + 1})
	if err != nil {
		return nil, err
	}
	v, err := s.Viewer(ctx, u, above, replies, []Roar{*focus})
	if err != nil {
		return nil, err
	}
	replies, next := db.Trim(replies, threadPageSize, roarCursor)
	return &Thread{Focus: focus, Above: above, Replies: replies, Next: next.ID, Viewer: v}, nil
}

// Live returns the roars after since, oldest first (at most pageSize; of
// the people u follows when home; the replies to roar thread when not 0):
// what a page whose stream is down polls for.
func (s *Service) Live(ctx context.Context, u *auth.User, since int64, home bool, thread int64) (*Feed, error) {
	q := Query{Since: since, Thread: thread, Limit: pageSize}
	if u != nil && home {
		q.Home = u.ID
	}
	roars, err := s.store.Timeline(ctx, q)
	if err != nil {
		return nil, err
	}
	v, err := s.Viewer(ctx, u, roars)
	if err != nil {
		return nil, err
	}
	return &Feed{Roars: roars, Viewer: v}, nil
}

// newest returns the public timeline's first page (200 roars and one more to
// know whether there are older), cached at the current version: decoded in
// this process, encoded in the shared cache.
func (s *Service) newest(ctx context.Context) ([]Roar, error) {
	v, err := s.currentVersion(ctx)
	if err != nil {
		return nil, err
	}
	return s.decoded.Get(ctx, "newest", v, func(ctx context.Context) ([]Roar, error) {
		b, err := s.cache.Fetch(ctx, cacheKey(v, "newest"), func(ctx context.Context) ([]byte, time.Duration, error) {
			roars, err := s.store.At(ctx, v).Timeline(ctx, Query{Limit: pageSize + 1})
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
		return roars, nil
	})
}

// timeline returns a page of q (pageSize by default) and the cursor of the next.
// A visitor's page (visitor) may come from a replica that lags.
func (s *Service) timeline(ctx context.Context, q Query, visitor bool) ([]Roar, int64, error) {
	if q.Limit == 0 {
		q.Limit = pageSize
	}
	n := q.Limit
	q.Limit++
	var roars []Roar
	var err error
	if q == (Query{Limit: pageSize + 1}) {
		roars, err = s.newest(ctx)
	} else if visitor {
		roars, err = s.store.Lagging().Timeline(ctx, q)
	} else {
		roars, err = s.store.Timeline(ctx, q)
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

// Viewer loads what marks roars for u (nil: a visitor, for whom nothing
// does): likes and reposts among roars, blocks and mutes, unseen
// notifications. One query, whatever the page size (Store.Marks).
func (s *Service) Viewer(ctx context.Context, u *auth.User, roars ...[]Roar) (*Viewer, error) {
	if u == nil {
		return &Viewer{}, nil
	}
	var ids []int64
	for _, list := range roars {
		for i := range list {
			ids = append(ids, list[i].Target().ID)
		}
	}
	v, err := s.store.Marks(ctx, u.ID, ids)
	if err != nil {
		return nil, err
	}
	v.User = u
	// Counts as the viewer sees the threads: one more query, only for a
	// viewer who does not see someone.
	if len(v.Rel.Hidden) > 0 && len(ids) > 0 {
		if v.HiddenReplies, err = s.store.HiddenReplies(ctx, u.ID, ids); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// versionTTL is how long something cached at a version is kept. Every write
// makes a new version, so under a write load old versions are garbage at
// once: a short life keeps them from filling the cache (and the heap the
// collector must scan), while a quiet timeline is rebuilt at most this often.
const versionTTL = 30 * time.Second

// cacheKey names a cached thing at version v.
func cacheKey(v int64, name string) string {
	return "roar:" + strconv.FormatInt(v, 10) + ":" + name
}

// newDecoded is the view of objects (nil: one of its own) that keeps, by
// name, what this process decoded from the shared cache at the version it
// was read, so that a hit at the current version costs one lookup: no
// shared cache, no decoding. The names are a few constants (the newest
// roars), never per user. Their size is estimated (roarsSize).
func newDecoded(objects *cache.Objects) *cache.Decoded[string, []Roar] {
	return cache.NewDecoded[string](objects, "roar", versionTTL, roarsSize)
}

// roarsSize estimates the bytes a decoded page of roars holds: the slice,
// and each roar's strings and original.
func roarsSize(roars []Roar) int {
	n := cap(roars) * int(unsafe.Sizeof(Roar{}))
	for i := range roars {
		n += roarStrings(&roars[i])
		if o := roars[i].RepostOf; o != nil {
			n += int(unsafe.Sizeof(*o)) + roarStrings(o)
		}
	}
	return n
}

// roarStrings is the bytes of r's strings.
func roarStrings(r *Roar) int {
	return len(r.Body) + len(r.ReplyToUser) + len(r.Author.Username) + len(r.Author.DisplayName) + len(r.Author.Avatar)
}
