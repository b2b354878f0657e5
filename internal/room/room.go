// Package room is a virtual waiting room: when more people arrive than a
// site can take at once, each gets a ticket that names their place in the
// line. Arrivals are admitted in the order they came, at a rate that
// follows the site's health; those who came before an opening are let in
// at it in a random order, so that arriving early, or many times, wins
// nothing.
//
// # Admission time
//
// A ticket holds a slot on the room's admission clock, not on the wall
// clock. Slots are handed out one every 1/ceiling (the configured rate:
// a ceiling now, not the only control), and the clock runs at the site's
// level (a Health, internal/pace: 1 when requests are served under the
// target latency, down to a floor when they are not). At level 1 the
// clock is the wall clock and the room behaves as a fixed-rate room; at
// 0.5 every slot comes half as fast, so the whole line, already issued
// tickets included, slows down in order: nobody is overtaken, and nobody
// is let into a site that cannot serve them. When the line is empty the
// clock catches up with the wall clock.
//
// The waiting page is honest because it is recomputed on each refresh:
// the wait shown is the distance to the slot divided by the current
// level. A ticket already issued is pushed back, but boundedly: the level
// never goes under the Health's floor, so a wait shown at level 1 is at
// most 1/floor as long (ten times with internal/pace's defaults), and the
// cookie lives that long (Place.Latest).
//
// In the cluster every instance measures its own health and publishes its
// level with each call (Redis, a few seconds' TTL); the room's clock runs
// at the mean of the live instances' levels: the ceiling is the site's,
// each instance's share of it scaled by its health. One clock and one line
// per room keep the order of arrival across instances. Should the store
// lose a line (Redis restarted without its data, or unreachable: each
// instance then keeps its own), each instance still has the latest slot
// it handed out or was shown on a waiting ticket, and nobody arriving
// then gets a slot ahead of it.
//
// A ticket is a signed cookie value, so the waiting page reads nothing of
// the person from a store: a refresh costs a signature check and one read
// of the room's clock (and, for a ticket of an opening's crowd, the
// crowd's size). Joining takes a slot from a Store: in process (embedded
// mode) or in Redis, shared by every instance (cluster mode).
package room

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Store keeps each room's admission clock, its next free slot and its
// count of early arrivals.
type Store interface {
	// Reserve takes key's next slot: one every `every`, burst of them at
	// once, none before floor or the room's clock. It moves the clock to
	// now at level (as Clock) and returns the slot, in admission time, and
	// the clock; when nobody is waiting, the clock first catches up with
	// now.
	Reserve(ctx context.Context, key string, now, floor time.Time, every time.Duration, burst int, level float64) (time.Time, Clock, error)
	// Clock moves key's admission clock to now, publishes this instance's
	// level (0 < level <= 1) and returns the clock: the admission time at
	// now and the level it runs at from now on.
	Clock(ctx context.Context, key string, now time.Time, level float64) (Clock, error)
	// Add counts who under key, once however often they come, kept for
	// ttl, and returns how many are counted.
	Add(ctx context.Context, key, who string, ttl time.Duration) (int64, error)
	// Count is how many key counts (0 if none).
	Count(ctx context.Context, key string) (int64, error)
}

// Clock is a room's admission clock at a moment.
type Clock struct {
	At    time.Time // the admission time: slots up to At are let in
	Level float64   // how fast it runs: admission seconds per second
}

// Health is how well the site serves those it let in (internal/pace).
type Health interface {
	// Level is the share of the rate to admit at now, in [Min(), 1].
	Level(now time.Time) float64
	// Min is the lowest Level (> 0).
	Min() float64
}

// An early arrival who joins again (another browser, cookies cleared) is
// counted once, and draws the same place: joining often neither helps
// them nor pushes everyone else back.

// Rooms admits people into rooms (one per race, say) at up to a rate a
// second, as the Health allows.
type Rooms struct {
	// Health sets the pace (nil: always the full rate).
	Health Health
	store  Store
	key    []byte
	every  time.Duration
	burst  int
	// PassFor is how long an admitted ticket lets its holder in; later,
	// they join again (at once, when there is no crowd).
	PassFor time.Duration
	// tail is, by room, the latest slot this instance handed out or was
	// shown on a ticket (Enter, Where): new arrivals queue behind it
	// should the store lose its line (Redis restarted without its data,
	// or unreachable, an instance's own Local in its stead).
	mu   sync.Mutex
	tail map[string]time.Time
}

// keep is how long a room's counts outlive their opening.
const keep = 24 * time.Hour

// New makes rooms that admit up to rate people a second (burst of them at
// once; fewer as r.Health says) over store, signing tickets with key (at least 32 bytes). A rate of 0
// admits everyone at once.
func New(store Store, key []byte, rate, burst int) (*Rooms, error) {
	if len(key) < 32 {
		return nil, errors.New("room: the signing key needs 32 bytes")
	}
	r := &Rooms{store: store, key: key, burst: max(burst, 1), PassFor: time.Hour, tail: map[string]time.Time{}}
	if rate > 0 {
		r.every = time.Second / time.Duration(rate)
	}
	return r, nil
}

// Ticket is a person's place in a room.
type Ticket struct {
	Room string // the room's name, e.g. a race's slug
	User int64  // whose it is: a pass lets in no one else
	// Opening, if set, is the opening the ticket waits for: its holder came
	// before it and is let in at Opening plus a random share of the early
	// crowd. Otherwise At is the holder's slot, in the room's admission
	// time (see the package doc): when they are let in at the full rate.
	Opening time.Time
	At      time.Time
	// In, once set (Admit), is when the holder was let in, by the wall
	// clock: the ticket is then a pass until In plus PassFor, whatever the
	// room's clock says later. A turn that has come is never taken back (a
	// read of the clock on another instance, or while Redis cannot be
	// asked and each instance keeps its own).
	In time.Time
}

// Early reports whether t waits for an opening.
func (t Ticket) Early() bool { return !t.Opening.IsZero() }

// Admitted reports whether t is a pass (Admit).
func (t Ticket) Admitted() bool { return !t.In.IsZero() }

// Admit makes t, whose turn came at p (p.In), a pass from then on: its
// holder keeps the cookie it is encoded in and is not sent back to the
// line however the room's clock reads afterwards. A ticket already
// admitted keeps its time.
func (r *Rooms) Admit(t Ticket, p Place) Ticket {
	if !t.Admitted() {
		t.In = p.At
	}
	return t
}

// Join gives user a ticket for room at now. next is the room's next
// opening (zero if none is ahead): before it, the ticket waits for it.
// last is the room's latest opening at or before now (zero if none): the
// early crowd of that opening goes first.
func (r *Rooms) Join(ctx context.Context, room string, user int64, now, last, next time.Time) (Ticket, error) {
	t, _, err := r.Enter(ctx, room, user, now, last, next)
	return t, err
}

// Enter is Join that also says where the new ticket stands.
func (r *Rooms) Enter(ctx context.Context, room string, user int64, now, last, next time.Time) (Ticket, Place, error) {
	t := Ticket{Room: room, User: user}
	if !next.IsZero() && now.Before(next) {
		t.Opening = next
		n, err := r.store.Add(ctx, earlyKey(room, next), strconv.FormatInt(user, 10), next.Sub(now)+keep)
		if err != nil {
			return Ticket{}, Place{}, err
		}
		return t, Place{Waiting: n}, nil
	}
	if r.every == 0 {
		t.At = now
		return t, Place{At: now, Level: 1}, nil
	}
	floor := last
	if !last.IsZero() {
		n, err := r.store.Count(ctx, earlyKey(room, last))
		if err != nil {
			return Ticket{}, Place{}, err
		}
		floor = last.Add(time.Duration(n) * r.every)
	}
	// No slot before the line's tail as this instance knows it: the store
	// has it too (a slot's floor changes nothing then), unless it lost it.
	floor = later(floor, r.seen(room, time.Time{}, now))
	at, c, err := r.store.Reserve(ctx, clockKey(room), now, floor, r.every, r.burst, r.level(now))
	if err != nil {
		return Ticket{}, Place{}, err
	}
	t.At = at
	r.seen(room, at, now)
	return t, r.place(at, c, now), nil
}

func clockKey(room string) string { return "room:" + room }

// seen notes slot in room's tail and returns the tail. Slots let in an
// hour before now are forgotten.
func (r *Rooms) seen(room string, slot, now time.Time) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if slot.After(r.tail[room]) {
		if len(r.tail) >= 1000 {
			for k, v := range r.tail {
				if v.Before(now.Add(-time.Hour)) {
					delete(r.tail, k)
				}
			}
		}
		r.tail[room] = slot
	}
	return r.tail[room]
}

func (r *Rooms) level(now time.Time) float64 {
	if r.Health == nil {
		return 1
	}
	return min(max(r.Health.Level(now), r.minLevel()), 1)
}

func (r *Rooms) minLevel() float64 {
	if r.Health == nil {
		return 1
	}
	return min(max(r.Health.Min(), 0.001), 1)
}

// place is where a ticket for slot stands at now, by the room's clock c.
func (r *Rooms) place(slot time.Time, c Clock, now time.Time) Place {
	d := slot.Sub(c.At)
	if d <= 0 { // in, since -d of admission time
		return Place{At: now.Add(d), Latest: now.Add(d), Level: c.Level}
	}
	lvl := min(max(c.Level, r.minLevel()), 1)
	return Place{
		At:     now.Add(time.Duration(math.Ceil(float64(d) / lvl))),
		Latest: now.Add(time.Duration(math.Ceil(float64(d) / r.minLevel()))),
		Ahead:  r.ahead(d),
		Level:  c.Level,
	}
}

func earlyKey(room string, opening time.Time) string {
	return "room:" + room + ":crowd:" + strconv.FormatInt(opening.UnixMilli(), 10)
}

// Place is where a ticket stands.
type Place struct {
	// At is when the holder is let in, at the room's current pace (for a
	// holder let in, when they were, in admission time); zero for an early
	// ticket before its opening (its place is drawn then).
	At time.Time
	// Latest is when the holder is let in at the latest, should the pace
	// fall to the Health's floor.
	Latest time.Time
	// Level is the pace the room's clock runs at (1: the full rate).
	Level float64
	// Ahead is about how many are let in before the holder; Waiting, for an
	// early ticket before its opening, how many wait for it.
	Ahead, Waiting int64
}

// In reports whether the holder may enter at now.
func (p Place) In(now time.Time) bool { return !p.At.IsZero() && !now.Before(p.At) }

// Where says where t stands at now: recomputed from the room's clock, so
// that the wait it gives follows the current pace.
func (r *Rooms) Where(ctx context.Context, t Ticket, now time.Time) (Place, error) {
	if t.Admitted() { // a pass: nothing to read
		return Place{At: t.In, Latest: t.In, Level: 1}, nil
	}
	slot := t.At
	if !t.Early() {
		r.seen(t.Room, slot, now) // the line's tail, should the store lose it
	} else {
		n, err := r.store.Count(ctx, earlyKey(t.Room, t.Opening))
		if err != nil {
			return Place{}, err
		}
		if now.Before(t.Opening) {
			return Place{Waiting: n}, nil
		}
		// The draw: the holder's share of the early crowd, fixed per person
		// and opening and unknown to them (it is signed with the key).
		slot = t.Opening.Add(time.Duration(float64(n) * r.share(t) * float64(r.every)))
	}
	if r.every == 0 {
		return Place{At: slot, Latest: slot, Level: 1}, nil
	}
	c, err := r.store.Clock(ctx, clockKey(t.Room), now, r.level(now))
	if err != nil {
		return Place{}, err
	}
	return r.place(slot, c, now), nil
}

// ahead is how many slots a wait of admission time holds.
func (r *Rooms) ahead(wait time.Duration) int64 {
	if wait <= 0 || r.every == 0 {
		return 0
	}
	return int64((wait + r.every - 1) / r.every)
}

// share is the holder's draw in [0, 1): the same however often they join.
func (r *Rooms) share(t Ticket) float64 {
	m := hmac.New(sha256.New, r.key)
	fmt.Fprintf(m, "draw|%s|%d|%d", t.Room, t.Opening.UnixMilli(), t.User)
	return float64(binary.BigEndian.Uint64(m.Sum(nil))>>11) / (1 << 53)
}

// Pass reports whether a ticket at place p lets its holder in at now: its
// turn has come, not longer than PassFor ago.
func (r *Rooms) Pass(p Place, now time.Time) bool {
	return p.In(now) && now.Sub(p.At) <= r.PassFor
}

// Encode is t as a cookie value, signed.
func (r *Rooms) Encode(t Ticket) string {
	var opening, at int64
	if t.Early() {
		opening = t.Opening.UnixMilli()
	} else {
		at = t.At.UnixMicro()
	}
	body := "1." + base64.RawURLEncoding.EncodeToString([]byte(t.Room)) + "." + strconv.FormatInt(t.User, 10) +
		"." + strconv.FormatInt(opening, 10) + "." + strconv.FormatInt(at, 10)
	if t.Admitted() { // a pass: version 2, its time let in after
		body = "2" + body[1:] + "." + strconv.FormatInt(t.In.UnixMicro(), 10)
	}
	return body + "." + r.sign(body)
}

func (r *Rooms) sign(body string) string {
	m := hmac.New(sha256.New, r.key)
	m.Write([]byte("ticket|" + body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// MaxTicket bounds a ticket's encoded length: anything longer is not one.
const MaxTicket = 256

// Decode reads a cookie value Encode wrote with the same key; ok is false
// for anything else.
func (r *Rooms) Decode(s string) (Ticket, bool) {
	if len(s) > MaxTicket {
		return Ticket{}, false
	}
	i := strings.LastIndexByte(s, '.')
	if i < 0 || !hmac.Equal([]byte(s[i+1:]), []byte(r.sign(s[:i]))) {
		return Ticket{}, false
	}
	f := strings.Split(s[:i], ".")
	var in int64
	switch {
	case len(f) == 5 && f[0] == "1":
	case len(f) == 6 && f[0] == "2":
		var err error
		if in, err = strconv.ParseInt(f[5], 10, 64); err != nil || in == 0 {
			return Ticket{}, false
		}
	default:
		return Ticket{}, false
	}
	room, err := base64.RawURLEncoding.DecodeString(f[1])
	if err != nil {
		return Ticket{}, false
	}
	user, err1 := strconv.ParseInt(f[2], 10, 64)
	opening, err2 := strconv.ParseInt(f[3], 10, 64)
	at, err3 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Ticket{}, false
	}
	t := Ticket{Room: string(room), User: user}
	if in != 0 {
		t.In = time.UnixMicro(in)
	}
	if opening != 0 {
		t.Opening = time.UnixMilli(opening)
	} else {
		t.At = time.UnixMicro(at)
	}
	return t, true
}
