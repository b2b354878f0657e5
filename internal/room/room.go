// Package room is a virtual waiting room: when more people arrive than a
// site can take at once, each gets a ticket that names the moment they are
// let in. Arrivals are admitted at a fixed rate in the order they came;
// those who came before an opening are let in at it in a random order, so
// that arriving early, or many times, wins nothing.
//
// A ticket is a signed cookie value, so the waiting page reads no store
// but, for a ticket of an opening's crowd, the crowd's size: a waiting
// visitor costs a signature check per refresh, and at most one count. Joining takes a
// slot from a Store: in process (embedded mode) or in Redis, shared by
// every instance (cluster mode).
package room

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Store keeps each room's next free slot and its count of early arrivals.
type Store interface {
	// Reserve takes key's next slot: one every `every`, burst of them at
	// once, none before floor or now. It returns when the slot comes.
	Reserve(ctx context.Context, key string, now, floor time.Time, every time.Duration, burst int) (time.Time, error)
	// Add counts who under key, once however often they come, kept for
	// ttl, and returns how many are counted.
	Add(ctx context.Context, key, who string, ttl time.Duration) (int64, error)
	// Count is how many key counts (0 if none).
	Count(ctx context.Context, key string) (int64, error)
}

// An early arrival who joins again (another browser, cookies cleared) is
// counted once, and draws the same place: joining often neither helps
// them nor pushes everyone else back.

// Rooms admits people into rooms (one per race, say) at Rate a second.
type Rooms struct {
	store Store
	key   []byte
	every time.Duration
	burst int
	// PassFor is how long an admitted ticket lets its holder in; later,
	// they join again (at once, when there is no crowd).
	PassFor time.Duration
}

// keep is how long a room's counts outlive their opening.
const keep = 24 * time.Hour

// New makes rooms that admit rate people a second (burst of them at once)
// over store, signing tickets with key (at least 32 bytes). A rate of 0
// admits everyone at once.
func New(store Store, key []byte, rate, burst int) (*Rooms, error) {
	if len(key) < 32 {
		return nil, errors.New("room: the signing key needs 32 bytes")
	}
	r := &Rooms{store: store, key: key, burst: max(burst, 1), PassFor: time.Hour}
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
	// crowd. Otherwise At is when the holder is let in.
	Opening time.Time
	At      time.Time
}

// Early reports whether t waits for an opening.
func (t Ticket) Early() bool { return !t.Opening.IsZero() }

// Join gives user a ticket for room at now. next is the room's next
// opening (zero if none is ahead): before it, the ticket waits for it.
// last is the room's latest opening at or before now (zero if none): the
// early crowd of that opening goes first.
func (r *Rooms) Join(ctx context.Context, room string, user int64, now, last, next time.Time) (Ticket, error) {
	t := Ticket{Room: room, User: user}
	if !next.IsZero() && now.Before(next) {
		t.Opening = next
		if _, err := r.store.Add(ctx, earlyKey(room, next), strconv.FormatInt(user, 10), next.Sub(now)+keep); err != nil {
			return Ticket{}, err
		}
		return t, nil
	}
	if r.every == 0 {
		t.At = now
		return t, nil
	}
	floor := last
	if !last.IsZero() {
		n, err := r.store.Count(ctx, earlyKey(room, last))
		if err != nil {
			return Ticket{}, err
		}
		floor = last.Add(time.Duration(n) * r.every)
	}
	at, err := r.store.Reserve(ctx, "room:"+room, now, floor, r.every, r.burst)
	if err != nil {
		return Ticket{}, err
	}
	t.At = at
	return t, nil
}

func earlyKey(room string, opening time.Time) string {
	return "room:" + room + ":crowd:" + strconv.FormatInt(opening.UnixMilli(), 10)
}

// Place is where a ticket stands.
type Place struct {
	// At is when the holder is let in; zero for an early ticket before its
	// opening (its place is drawn then).
	At time.Time
	// Ahead is about how many are let in before the holder; Waiting, for an
	// early ticket before its opening, how many wait for it.
	Ahead, Waiting int64
}

// In reports whether the holder may enter at now.
func (p Place) In(now time.Time) bool { return !p.At.IsZero() && !now.Before(p.At) }

// Where says where t stands at now.
func (r *Rooms) Where(ctx context.Context, t Ticket, now time.Time) (Place, error) {
	if !t.Early() {
		return Place{At: t.At, Ahead: r.ahead(t.At.Sub(now))}, nil
	}
	n, err := r.store.Count(ctx, earlyKey(t.Room, t.Opening))
	if err != nil {
		return Place{}, err
	}
	if now.Before(t.Opening) {
		return Place{Waiting: n}, nil
	}
	// The draw: the holder's share of the early crowd, fixed per person
	// and opening and unknown to them (it is signed with the key).
	at := t.Opening.Add(time.Duration(float64(n) * r.share(t) * float64(r.every)))
	return Place{At: at, Ahead: r.ahead(at.Sub(now))}, nil
}

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
	if len(f) != 5 || f[0] != "1" {
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
	if opening != 0 {
		t.Opening = time.UnixMilli(opening)
	} else {
		t.At = time.UnixMicro(at)
	}
	return t, true
}
