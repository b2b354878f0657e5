package roar

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/ratelimit"
	"github.com/tutti-dev/tutti/internal/version"
)

// svcWorld is roar's Service alone, with no HTTP: four users of its own
// (ann, bob, cat and mod, a moderator, with the world's number after their
// names: worlds share a database), Ann's roar and Bob's reply to it, and a
// record of what the Service told the live streams.
type svcWorld struct {
	t   *testing.T
	ctx context.Context
	f   *storeFixture
	s   *Service

	ann, bob, cat, mod *auth.User
	annRoar, bobReply  int64
	made               int64    // a roar a case's setup made
	events             []string // "type id" per event published
}

// newSvcWorld builds the world on d; limit paces posting (nil: unlimited).
func newSvcWorld(t *testing.T, d *db.DB, limit Limiter) *svcWorld {
	t.Helper()
	f := &storeFixture{t: t, d: d, s: NewStore(d, time.Now)}
	w := &svcWorld{t: t, ctx: context.Background(), f: f}
	n := strconv.FormatInt(svcWorlds.Add(1), 10)
	user := func(name string, moderator bool) *auth.User {
		u := &auth.User{Username: name + n}
		if moderator {
			u.Roles = []auth.Role{{App: "roar", Name: RoleModerator}}
		}
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			return db.Scan(tx.QueryRow(ctx, `INSERT INTO users (username, username_key, email, email_key, password_hash, created_at, updated_at)
				VALUES (?, ?, ?, ?, 'x', 0, 0) RETURNING id`, u.Username, u.Username, u.Username+"@example.com", u.Username+"@example.com"), &u.ID)
		}); err != nil {
			t.Fatal(err)
		}
		return u
	}
	w.ann, w.bob, w.cat, w.mod = user("ann", false), user("bob", false), user("cat", false), user("mod", true)
	f.ann, f.bob, f.cat = w.ann.ID, w.bob.ID, w.cat.ID
	w.s = NewService(f.s, d.Batch(), version.For(d), cache.New(cache.NewLocal(1<<20)), limit, nil,
		func(_ context.Context, e *Event) {
			if (e.Type == "roar" || e.Type == "counts") && e.of == nil {
				t.Errorf("%s event %d without its roar", e.Type, e.ID)
			}
			w.events = append(w.events, e.Type+" "+itoa(e.ID))
		})
	w.annRoar = f.post(Post{Author: f.ann, Body: "ann's first #jazz"})
	w.bobReply = f.post(Post{Author: f.bob, Body: "@" + w.ann.Username + " bob's reply", ReplyTo: w.annRoar})
	return w
}

// svcWorlds numbers the worlds, whose users are named apart.
var svcWorlds atomic.Int64

// state is what a write may change: the rows of each roar table, the
// notifications seen, and the version (in the database and as the cache
// keys see it).
func (w *svcWorld) state() map[string]int64 {
	w.t.Helper()
	out := map[string]int64{}
	for _, q := range []string{
		"SELECT count(*) FROM roars",
		"SELECT count(*) FROM roar_likes",
		"SELECT count(*) FROM roar_follows",
		"SELECT count(*) FROM roar_blocks",
		"SELECT count(*) FROM roar_reports",
		"SELECT count(*) FROM roar_notifications",
		"SELECT count(*) FROM roar_notifications WHERE seen = 1",
		"SELECT COALESCE(sum(likes + replies + reposts), 0) FROM roars",
		"SELECT version FROM roar_meta",
	} {
		var n int64
		if err := db.Scan(w.f.d.QueryRow(w.ctx, q), &n); err != nil {
			w.t.Fatalf("%s: %v", q, err)
		}
		out[q] = n
	}
	v, err := w.s.currentVersion(w.ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	out["cache version"] = v
	return out
}

// newest is the newest roar on a visitor's first page (from the cache).
func (w *svcWorld) newest() int64 {
	w.t.Helper()
	feed, err := w.s.Timeline(w.ctx, nil, Query{})
	if err != nil || len(feed.Roars) == 0 {
		w.t.Fatalf("a visitor's timeline: %+v, %v", feed, err)
	}
	return feed.Roars[0].ID
}

// block makes who block whom.
func (w *svcWorld) block(who, whom *auth.User) {
	w.t.Helper()
	if err := w.s.Relate(w.ctx, who, whom.Username, "block", true); err != nil {
		w.t.Fatalf("%s blocks %s: %v", who.Username, whom.Username, err)
	}
}

func (w *svcWorld) report(who *auth.User) {
	w.t.Helper()
	if err := w.s.Report(w.ctx, who, w.annRoar, "spam"); err != nil {
		w.t.Fatalf("%s reports: %v", who.Username, err)
	}
}

func (w *svcWorld) exists(id int64) bool {
	w.t.Helper()
	_, err := w.f.s.Roar(w.ctx, id)
	if err != nil && errs.KindOf(err) != errs.NotFound {
		w.t.Fatal(err)
	}
	return err == nil
}

// svcCase is one call of the Service: a refusal (want is not errs.None)
// must change nothing at all and tell the streams nothing; a success is
// checked by check.
type svcCase struct {
	name  string
	limit func() Limiter    // a new limiter per database; nil: unlimited
	setup func(w *svcWorld) // before the call (its writes are not the call's)
	call  func(w *svcWorld) error
	want  errs.Kind         // errs.None: it works
	field string            // for Invalid: the field whose message it carries
	check func(w *svcWorld) // after a success: what is stored and told
}

func runSvcCases(t *testing.T, cases []svcCase) {
	t.Helper()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				var limit Limiter
				if c.limit != nil {
					limit = c.limit()
				}
				w := newSvcWorld(t, d, limit)
				if c.setup != nil {
					c.setup(w)
				}
				before := w.state()
				w.events = nil
				err := c.call(w)
				if got := errs.KindOf(err); got != c.want {
					t.Fatalf("err = %v (kind %d); want kind %d", err, got, c.want)
				}
				if c.field != "" {
					if msg := errs.As(err).Fields[c.field]; msg == "" {
						t.Errorf("err = %v; want a message for the field %q", err, c.field)
					}
				}
				if c.want != errs.None {
					if after := w.state(); !maps.Equal(before, after) {
						t.Errorf("a refused call changed things:\n before %v\n after  %v", before, after)
					}
					if len(w.events) > 0 {
						t.Errorf("a refused call told the streams %v", w.events)
					}
					return
				}
				if c.check != nil {
					c.check(w)
				}
			})
		}
	}, auth.Migrations, Migrations)
}

func wantEvents(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("events: got %v; want %v", got, want)
	}
}

// TestServiceSignIn: every action refuses a visitor (Unauthorized), and
// what moderators do refuses a visitor as a non-moderator (Forbidden).
func TestServiceSignIn(t *testing.T) {
	calls := map[string]func(w *svcWorld) error{
		"Post":   func(w *svcWorld) error { _, err := w.s.Post(w.ctx, nil, "hello", 0); return err },
		"Reply":  func(w *svcWorld) error { _, err := w.s.Post(w.ctx, nil, "hello", w.annRoar); return err },
		"Repost": func(w *svcWorld) error { _, err := w.s.Repost(w.ctx, nil, w.annRoar, true); return err },
		"Unrepost": func(w *svcWorld) error {
			_, err := w.s.Repost(w.ctx, nil, w.annRoar, false)
			return err
		},
		"Like":          func(w *svcWorld) error { _, err := w.s.Like(w.ctx, nil, w.annRoar, true); return err },
		"Delete":        func(w *svcWorld) error { return w.s.Delete(w.ctx, nil, w.annRoar) },
		"Follow":        func(w *svcWorld) error { return w.s.Relate(w.ctx, nil, w.ann.Username, "follow", true) },
		"Block":         func(w *svcWorld) error { return w.s.Relate(w.ctx, nil, w.ann.Username, "block", true) },
		"Report":        func(w *svcWorld) error { return w.s.Report(w.ctx, nil, w.annRoar, "spam") },
		"MarkSeen":      func(w *svcWorld) error { return w.s.MarkSeen(w.ctx, nil, 1<<40) },
		"Notifications": func(w *svcWorld) error { _, _, err := w.s.Notifications(w.ctx, nil, 0, 50); return err },
		"Unread":        func(w *svcWorld) error { _, err := w.s.Unread(w.ctx, nil); return err },
	}
	var cases []svcCase
	for name, call := range calls {
		cases = append(cases, svcCase{name: name, call: call, want: errs.Unauthorized})
	}
	cases = append(cases,
		svcCase{name: "Reports", want: errs.Forbidden,
			call: func(w *svcWorld) error { _, err := w.s.Reports(w.ctx, nil); return err }},
		svcCase{name: "Dismiss", want: errs.Forbidden, setup: func(w *svcWorld) { w.report(w.bob) },
			call: func(w *svcWorld) error { return w.s.Dismiss(w.ctx, nil, w.annRoar) }})
	runSvcCases(t, cases)
}

// TestServiceAuthorization: who may delete, read and dismiss reports, and
// what a block refuses, both ways.
func TestServiceAuthorization(t *testing.T) {
	runSvcCases(t, []svcCase{
		{name: "deleting someone else's roar", want: errs.Forbidden,
			call: func(w *svcWorld) error { return w.s.Delete(w.ctx, w.bob, w.annRoar) }},
		{name: "deleting someone else's repost", want: errs.Forbidden,
			setup: func(w *svcWorld) {
				if _, err := w.s.Repost(w.ctx, w.cat, w.annRoar, true); err != nil {
					w.t.Fatal(err)
				}
				w.made = w.f.timeline(Query{Author: w.cat.ID})[0]
			},
			call: func(w *svcWorld) error { return w.s.Delete(w.ctx, w.bob, w.made) }},
		{name: "deleting a roar that does not exist", want: errs.NotFound,
			call: func(w *svcWorld) error { return w.s.Delete(w.ctx, w.ann, w.bobReply+100) }},
		{name: "deleting one's own reply", want: errs.None,
			call: func(w *svcWorld) error { return w.s.Delete(w.ctx, w.bob, w.bobReply) },
			check: func(w *svcWorld) {
				if w.exists(w.bobReply) {
					w.t.Error("the reply is still there")
				}
				if r := w.f.roar(w.annRoar); r.Replies != 0 {
					w.t.Errorf("ann's roar has %d replies; want 0", r.Replies)
				}
				wantEvents(w.t, w.events, "delete "+itoa(w.bobReply), "counts "+itoa(w.annRoar))
			}},
		{name: "a moderator deleting someone's roar", want: errs.None,
			call: func(w *svcWorld) error { return w.s.Delete(w.ctx, w.mod, w.annRoar) },
			check: func(w *svcWorld) {
				if w.exists(w.annRoar) {
					w.t.Error("the roar is still there")
				}
				wantEvents(w.t, w.events, "delete "+itoa(w.annRoar))
			}},
		{name: "a user reading the reports", want: errs.Forbidden, setup: func(w *svcWorld) { w.report(w.bob) },
			call: func(w *svcWorld) error { _, err := w.s.Reports(w.ctx, w.ann); return err }},
		{name: "a user dismissing reports", want: errs.Forbidden, setup: func(w *svcWorld) { w.report(w.bob) },
			call: func(w *svcWorld) error { return w.s.Dismiss(w.ctx, w.ann, w.annRoar) }},
		{name: "a moderator dismissing reports", want: errs.None, setup: func(w *svcWorld) { w.report(w.bob) },
			call: func(w *svcWorld) error { return w.s.Dismiss(w.ctx, w.mod, w.annRoar) },
			check: func(w *svcWorld) {
				reports, err := w.s.Reports(w.ctx, w.mod)
				if err != nil {
					w.t.Fatal(err)
				}
				for _, r := range reports {
					if r.Roar.ID == w.annRoar {
						w.t.Errorf("a report of the roar after dismissing: %+v", r)
					}
				}
				if !w.exists(w.annRoar) {
					w.t.Error("dismissing the reports removed the roar")
				}
			}},
		// Ann blocked Cat: neither replies to, likes, reposts or follows the other.
		{name: "replying to who blocked you", want: errs.Forbidden, setup: func(w *svcWorld) { w.block(w.ann, w.cat) },
			call: func(w *svcWorld) error { _, err := w.s.Post(w.ctx, w.cat, "let me in", w.annRoar); return err }},
		{name: "replying to whom you blocked", want: errs.Forbidden,
			setup: func(w *svcWorld) { w.made = w.f.post(Post{Author: w.cat.ID, Body: "cat's"}); w.block(w.ann, w.cat) },
			call:  func(w *svcWorld) error { _, err := w.s.Post(w.ctx, w.ann, "hm", w.made); return err }},
		{name: "liking who blocked you", want: errs.Forbidden, setup: func(w *svcWorld) { w.block(w.ann, w.cat) },
			call: func(w *svcWorld) error { _, err := w.s.Like(w.ctx, w.cat, w.annRoar, true); return err }},
		{name: "reposting who blocked you", want: errs.Forbidden, setup: func(w *svcWorld) { w.block(w.ann, w.cat) },
			call: func(w *svcWorld) error { _, err := w.s.Repost(w.ctx, w.cat, w.annRoar, true); return err }},
		{name: "following who blocked you", want: errs.Forbidden, setup: func(w *svcWorld) { w.block(w.ann, w.cat) },
			call: func(w *svcWorld) error { return w.s.Relate(w.ctx, w.cat, w.ann.Username, "follow", true) }},
		{name: "replying to someone else, blocked", want: errs.None, setup: func(w *svcWorld) { w.block(w.ann, w.cat) },
			call: func(w *svcWorld) error { _, err := w.s.Post(w.ctx, w.cat, "@bob hi", w.bobReply); return err }},
	})
}

// TestServiceValidation: bad input is Invalid (with the field's message
// where there is a field), a missing roar or user NotFound; nothing is
// written.
func TestServiceValidation(t *testing.T) {
	post := func(body string) func(w *svcWorld) error {
		return func(w *svcWorld) error { _, err := w.s.Post(w.ctx, w.bob, body, 0); return err }
	}
	report := func(reason string) func(w *svcWorld) error {
		return func(w *svcWorld) error { return w.s.Report(w.ctx, w.bob, w.annRoar, reason) }
	}
	reposted := func(w *svcWorld) { // Cat reposts Ann's roar: w.made
		if _, err := w.s.Repost(w.ctx, w.cat, w.annRoar, true); err != nil {
			w.t.Fatal(err)
		}
		w.made = w.f.timeline(Query{Author: w.cat.ID})[0]
	}
	runSvcCases(t, []svcCase{
		{name: "an empty roar", call: post(""), want: errs.Invalid, field: "body"},
		{name: "a roar of white space", call: post(" \n\t "), want: errs.Invalid, field: "body"},
		{name: "a roar too long", call: post(strings.Repeat("é", MaxLen+1)), want: errs.Invalid, field: "body"},
		{name: "a roar with a control character", call: post("bell\x07"), want: errs.Invalid, field: "body"},
		{name: "a roar with a NUL", call: post("a\x00b"), want: errs.Invalid, field: "body"},
		{name: "a roar with a bidi override", call: post("abc\u202edef"), want: errs.Invalid, field: "body"},
		{name: "a roar not UTF-8", call: post("a\xffb"), want: errs.Invalid, field: "body"},
		{name: "a reply to no roar", want: errs.NotFound,
			call: func(w *svcWorld) error { _, err := w.s.Post(w.ctx, w.bob, "hi", w.bobReply+100); return err }},
		{name: "a reply to a repost", want: errs.Invalid, setup: reposted,
			call: func(w *svcWorld) error { _, err := w.s.Post(w.ctx, w.bob, "hi", w.made); return err }},
		{name: "liking a repost", want: errs.Invalid, setup: reposted,
			call: func(w *svcWorld) error { _, err := w.s.Like(w.ctx, w.bob, w.made, true); return err }},
		{name: "liking no roar", want: errs.NotFound,
			call: func(w *svcWorld) error { _, err := w.s.Like(w.ctx, w.bob, w.bobReply+100, true); return err }},
		{name: "an empty reason", call: report("  "), want: errs.Invalid, field: "reason"},
		{name: "a reason too long", call: report(strings.Repeat("x", 1001)), want: errs.Invalid, field: "reason"},
		{name: "a reason with a control character", call: report("spam\x1b[31m"), want: errs.Invalid, field: "reason"},
		{name: "reporting no roar", want: errs.NotFound,
			call: func(w *svcWorld) error { return w.s.Report(w.ctx, w.bob, w.bobReply+100, "spam") }},
		{name: "following oneself", want: errs.Invalid,
			call: func(w *svcWorld) error {
				return w.s.Relate(w.ctx, w.bob, strings.ToUpper(w.bob.Username), "follow", true)
			}},
		{name: "following nobody", want: errs.NotFound,
			call: func(w *svcWorld) error { return w.s.Relate(w.ctx, w.bob, "nobody", "follow", true) }},
		{name: "an unknown relation", want: errs.Invalid,
			call: func(w *svcWorld) error { return w.s.Relate(w.ctx, w.bob, w.ann.Username, "befriend", true) }},
		{name: "a roar of exactly the longest", call: post(strings.Repeat("é", MaxLen)), want: errs.None,
			check: func(w *svcWorld) {
				if got := w.f.timeline(Query{Author: w.bob.ID, Limit: 1}); len(got) != 1 || len([]rune(w.f.roar(got[0]).Body)) != MaxLen {
					w.t.Errorf("bob's newest = %v; want the %d-letter roar", got, MaxLen)
				}
			}},
	})
}

// TestServiceRateLimit: past the limit a roar, reply or new repost is
// refused with the wait and nothing written; what changes nothing (a second
// repost of the same roar) and what is not posting (likes) is not counted.
func TestServiceRateLimit(t *testing.T) {
	spent := func(w *svcWorld) { // the one roar the burst allows
		if _, err := w.s.Post(w.ctx, w.cat, "first", 0); err != nil {
			w.t.Fatal(err)
		}
	}
	limit := func() Limiter { return ratelimit.NewLocal(time.Hour, 1) }
	cases := []svcCase{
		{name: "a second roar", setup: spent, want: errs.TooMany,
			call: func(w *svcWorld) error { _, err := w.s.Post(w.ctx, w.cat, "second", 0); return err }},
		{name: "a reply", setup: spent, want: errs.TooMany,
			call: func(w *svcWorld) error { _, err := w.s.Post(w.ctx, w.cat, "hi", w.annRoar); return err }},
		{name: "a repost", setup: spent, want: errs.TooMany,
			call: func(w *svcWorld) error { _, err := w.s.Repost(w.ctx, w.cat, w.annRoar, true); return err }},
		{name: "a like", setup: spent, want: errs.None,
			call: func(w *svcWorld) error { _, err := w.s.Like(w.ctx, w.cat, w.annRoar, true); return err }},
		{name: "another user's roar", setup: spent, want: errs.None,
			call: func(w *svcWorld) error { _, err := w.s.Post(w.ctx, w.bob, "mine", 0); return err }},
	}
	for i := range cases {
		cases[i].limit = limit
	}
	runSvcCases(t, cases)
}

// TestServiceRepostAgain: reposting again what one reposted changes
// nothing and is not counted against the rate limit.
func TestServiceRepostAgain(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newSvcWorld(t, d, ratelimit.NewLocal(time.Hour, 2))
		if _, err := w.s.Repost(w.ctx, w.cat, w.annRoar, true); err != nil {
			t.Fatal(err)
		}
		before := w.state()
		if n, err := w.s.Repost(w.ctx, w.cat, w.annRoar, true); err != nil || n != 1 {
			t.Errorf("reposting again: %d, %v; want 1 repost and no error", n, err)
		}
		if after := w.state(); !maps.Equal(before, after) {
			t.Errorf("reposting again changed things:\n before %v\n after  %v", before, after)
		}
		// The burst of two: the first repost took one, the second none.
		if _, err := w.s.Post(w.ctx, w.cat, "the second of the burst", 0); err != nil {
			t.Fatalf("the second roar of the burst: %v", err)
		}
		_, err := w.s.Post(w.ctx, w.cat, "now too fast", 0)
		if e := errs.As(err); e.Kind != errs.TooMany || e.RetryAfter <= 0 {
			t.Errorf("a third roar: %v (kind %d, retry after %v); want TooMany with a wait", err, e.Kind, e.RetryAfter)
		}
	}, auth.Migrations, Migrations)
}

// TestServiceWrites: what each action stores and tells the streams, in
// order: the unread badges of whom it notified, then the change.
func TestServiceWrites(t *testing.T) {
	unread := func(w *svcWorld, u *auth.User) int64 {
		w.t.Helper()
		n, err := w.s.Unread(w.ctx, u)
		if err != nil {
			w.t.Fatal(err)
		}
		return n
	}
	var posted *Roar
	runSvcCases(t, []svcCase{
		{name: "a roar", want: errs.None,
			setup: func(w *svcWorld) { w.newest() }, // cached at the version before
			call: func(w *svcWorld) (err error) {
				posted, err = w.s.Post(w.ctx, w.cat, "  hello #Jazz \r\n", 0)
				return err
			},
			check: func(w *svcWorld) {
				if posted.Body != "hello #Jazz" || posted.Author.ID != w.cat.ID || posted.ReplyTo != 0 {
					w.t.Errorf("posted %+v; want cat's cleaned roar", posted)
				}
				if got := w.f.roar(posted.ID); got.Body != posted.Body {
					w.t.Errorf("stored %q; want %q", got.Body, posted.Body)
				}
				if got := w.f.timeline(Query{Tag: "jazz", Limit: 1}); len(got) != 1 || got[0] != posted.ID {
					w.t.Errorf("#jazz's newest: %v; want %d", got, posted.ID)
				}
				wantEvents(w.t, w.events, "roar "+itoa(posted.ID))
				if got := w.newest(); got != posted.ID {
					w.t.Errorf("the newest roar a visitor sees: %d; want %d (the version did not move?)", got, posted.ID)
				}
			}},
		{name: "a reply that mentions", want: errs.None,
			call: func(w *svcWorld) (err error) {
				posted, err = w.s.Post(w.ctx, w.cat, "@"+w.ann.Username+" @"+w.bob.Username+" me too", w.annRoar)
				return err
			},
			check: func(w *svcWorld) {
				if r := w.f.roar(w.annRoar); r.Replies != 2 {
					w.t.Errorf("ann's roar has %d replies; want 2", r.Replies)
				}
				// Ann once (replied to and mentioned), Bob mentioned.
				if a, b := unread(w, w.ann), unread(w, w.bob); a != 2 || b != 1 {
					w.t.Errorf("unread: ann %d, bob %d; want 2 (bob's reply, cat's), 1", a, b)
				}
				wantEvents(w.t, w.events, "notify "+itoa(w.ann.ID), "notify "+itoa(w.bob.ID),
					"roar "+itoa(posted.ID), "counts "+itoa(w.annRoar))
			}},
		{name: "a like, twice", want: errs.None,
			call: func(w *svcWorld) error {
				for range 2 {
					if n, err := w.s.Like(w.ctx, w.bob, w.annRoar, true); err != nil || n != 1 {
						return fmt.Errorf("like: %d, %w", n, err)
					}
				}
				return nil
			},
			check: func(w *svcWorld) {
				if r := w.f.roar(w.annRoar); r.Likes != 1 {
					w.t.Errorf("%d likes; want 1", r.Likes)
				}
				a := itoa(w.annRoar)
				wantEvents(w.t, w.events, "notify "+itoa(w.ann.ID), "like "+a, "like "+a)
			}},
		{name: "a like taken back", want: errs.None,
			setup: func(w *svcWorld) {
				if _, err := w.s.Like(w.ctx, w.bob, w.annRoar, true); err != nil {
					w.t.Fatal(err)
				}
			},
			call: func(w *svcWorld) error { _, err := w.s.Like(w.ctx, w.bob, w.annRoar, false); return err },
			check: func(w *svcWorld) {
				if r := w.f.roar(w.annRoar); r.Likes != 0 {
					w.t.Errorf("%d likes; want 0", r.Likes)
				}
			}},
		{name: "a repost, then undone", want: errs.None,
			call: func(w *svcWorld) error {
				if n, err := w.s.Repost(w.ctx, w.cat, w.annRoar, true); err != nil || n != 1 {
					return fmt.Errorf("repost: %d, %w", n, err)
				}
				if n, err := w.s.Repost(w.ctx, w.cat, w.annRoar, false); err != nil || n != 0 {
					return fmt.Errorf("undo: %d, %w", n, err)
				}
				return nil
			},
			check: func(w *svcWorld) {
				if got := w.f.timeline(Query{Author: w.cat.ID}); len(got) != 0 {
					w.t.Errorf("cat's roars %v; want none", got)
				}
				if len(w.events) != 5 || w.events[1] != "roar "+strings.TrimPrefix(w.events[3], "delete ") {
					w.t.Errorf("events %v; want notify, roar R, counts, delete R, counts", w.events)
				}
			}},
		{name: "a follow", want: errs.None,
			call: func(w *svcWorld) error {
				return w.s.Relate(w.ctx, w.cat, strings.ToUpper(w.bob.Username[:1])+w.bob.Username[1:], "follow", true)
			},
			check: func(w *svcWorld) {
				wantIDs(w.t, "cat's home", w.f.timeline(Query{Home: w.cat.ID}), w.bobReply)
				wantEvents(w.t, w.events, "notify "+itoa(w.bob.ID))
			}},
		{name: "notifications seen", want: errs.None,
			call: func(w *svcWorld) error { return w.s.MarkSeen(w.ctx, w.ann, 1<<40) },
			check: func(w *svcWorld) {
				if n := unread(w, w.ann); n != 0 {
					w.t.Errorf("ann's unread %d; want 0", n)
				}
				wantEvents(w.t, w.events, "notify "+itoa(w.ann.ID))
			}},
		{name: "a report, twice", want: errs.None,
			call: func(w *svcWorld) error {
				if err := w.s.Report(w.ctx, w.bob, w.annRoar, " spam\r\nand more "); err != nil {
					return err
				}
				return w.s.Report(w.ctx, w.bob, w.annRoar, "again")
			},
			check: func(w *svcWorld) {
				reports, err := w.s.Reports(w.ctx, w.mod)
				if err != nil || len(reports) != 1 || reports[0].Count != 1 || reports[0].Reason != "spam\nand more" ||
					reports[0].Reporter != w.bob.Username || reports[0].Roar.ID != w.annRoar {
					w.t.Errorf("reports = %+v, %v; want bob's one report of ann's roar", reports, err)
				}
				wantEvents(w.t, w.events)
			}},
	})
}

// TestServiceReads: timelines, threads and profiles come with the viewer's
// marks, and a block hides its authors from the viewer.
func TestServiceReads(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newSvcWorld(t, d, nil)
		if _, err := w.s.Like(w.ctx, w.bob, w.annRoar, true); err != nil {
			t.Fatal(err)
		}
		w.block(w.cat, w.bob)

		feed, err := w.s.Timeline(w.ctx, w.bob, Query{})
		if err != nil {
			t.Fatal(err)
		}
		if len(feed.Roars) != 2 || feed.Next != 0 || !feed.Viewer.liked(w.annRoar) || feed.Viewer.liked(w.bobReply) {
			t.Errorf("bob's public timeline: %d roars, next %d, liked %v; want 2, 0, only ann's", len(feed.Roars), feed.Next, feed.Viewer.Liked)
		}
		if feed.Viewer.Unseen != 0 || feed.Viewer.User != w.bob {
			t.Errorf("bob's viewer %+v", feed.Viewer)
		}
		// The cached first page, a visitor's: no marks.
		if feed, err := w.s.Timeline(w.ctx, nil, Query{}); err != nil || len(feed.Roars) != 2 || feed.Viewer.signedIn() {
			t.Errorf("a visitor's timeline: %+v, %v", feed, err)
		}
		if feed, err := w.s.Timeline(w.ctx, nil, Query{Limit: 1}); err != nil || len(feed.Roars) != 1 || feed.Next != w.bobReply {
			t.Errorf("a page of one: %+v, %v; want bob's reply and the cursor at it", feed, err)
		}

		// Cat blocked Bob: Cat's viewer hides him.
		feed, err = w.s.Timeline(w.ctx, w.cat, Query{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range feed.Roars {
			if hides := feed.Viewer.Rel.Hides(&r); hides != (r.Author.ID == w.bob.ID) {
				t.Errorf("cat's viewer hides roar %d by %s: %v", r.ID, r.Author.Username, hides)
			}
		}

		focus, err := w.s.Roar(w.ctx, w.bobReply)
		if err != nil {
			t.Fatal(err)
		}
		th, err := w.s.Thread(w.ctx, w.ann, focus, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(th.Above) != 1 || th.Above[0].ID != w.annRoar || len(th.Replies) != 0 || th.Viewer.Unseen != 2 {
			t.Errorf("the thread of bob's reply for ann: above %v, replies %v, unseen %d; want ann's roar, none, 2",
				th.Above, th.Replies, th.Viewer.Unseen)
		}
		replies, err := w.s.Replies(w.ctx, nil, w.annRoar, 0, 0)
		if err != nil || len(replies.Roars) != 1 || replies.Roars[0].ID != w.bobReply {
			t.Errorf("replies of ann's roar: %+v, %v", replies, err)
		}
		if _, err := w.s.Replies(w.ctx, nil, w.bobReply+100, 0, 0); errs.KindOf(err) != errs.NotFound {
			t.Errorf("replies of no roar: %v; want NotFound", err)
		}

		p, err := w.s.Profile(w.ctx, w.cat, w.bob.Username)
		if err != nil || !p.Blocked || p.Me {
			t.Errorf("bob's profile for cat: %+v, %v; want blocked", p, err)
		}
		notes, next, err := w.s.Notifications(w.ctx, w.ann, 0, 1)
		if err != nil || len(notes) != 1 || notes[0].Kind != "like" || next != notes[0].ID {
			t.Errorf("ann's first notification: %+v, next %d, %v; want bob's like and a next page", notes, next, err)
		}
	}, auth.Migrations, Migrations)
}

// A batch of writes is one change: roar_meta's version goes up once per
// transaction, not once per write, and the stamp that keys the caches is
// the database's after every batch, whatever its size.
func TestServiceBatchRaisesVersionOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newSvcWorld(t, d, nil)
		const n = 40
		before := w.state()
		b0, w0 := w.s.WriteStats()
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := w.s.Post(w.ctx, w.ann, fmt.Sprint("batched ", i), 0); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		after := w.state()
		batches, writes := w.s.WriteStats()
		batches, writes = batches-b0, writes-w0
		if writes != n {
			t.Fatalf("%d writes; want %d", writes, n)
		}
		const v = "SELECT version FROM roar_meta"
		if got := after[v] - before[v]; got != batches {
			t.Errorf("the version went up by %d for %d writes in %d transactions; want once per transaction", got, n, batches)
		}
		if after["cache version"] != after[v] {
			t.Errorf("the caches' stamp is %d, the database's version %d; want them equal", after["cache version"], after[v])
		}
		t.Logf("%d writes in %d transactions", writes, batches)
	}, auth.Migrations, Migrations)
}

// The roar a plain post returns (and announces to the live streams) is
// built from what was written, not read back: it must be the roar the
// database then holds, author and time included.
func TestServicePostReturnsTheStoredRoar(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newSvcWorld(t, d, nil)
		w.ann.DisplayName, w.ann.Avatar = "Ann A.", "avatars/ann.jpg"
		if _, err := d.Exec(w.ctx, "UPDATE users SET display_name = ?, avatar = ? WHERE id = ?", w.ann.DisplayName, w.ann.Avatar, w.ann.ID); err != nil {
			t.Fatal(err)
		}
		got, err := w.s.Post(w.ctx, w.ann, "  built, not read back  #tutti", 0)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := w.s.store.Roar(w.ctx, got.ID)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", *stored) {
			t.Errorf("Post returned\n%+v\nthe database holds\n%+v", *got, *stored)
		}
	}, auth.Migrations, Migrations)
}
