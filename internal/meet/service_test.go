package meet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
)

// svcWorld is a poll with two participants, Ada (one timeframe) and Bob,
// driven through the Service alone, with a clock the test moves and a record
// of what the Service told the live pages.
type svcWorld struct {
	t       *testing.T
	ctx     context.Context
	s       *Service
	clock   time.Time
	changes []string // "poll-id kind" per change announced
	deleted []string
	p       *Poll
	ada     *Participant
	bob     *Participant
	adaTF   int64 // Ada's timeframe
}

var svcPollInput = PollInput{Title: "Planning", StartDate: "2030-03-02", EndDate: "2030-03-04",
	DayStart: "09:00", DayEnd: "17:00", TZ: "Europe/Berlin", Duration: "60", Deadline: "2030-03-01T18:00"}

var svcTimeframe = TimeframeInput{Date: "2030-03-02", Start: "09:00", End: "10:00", Tier: "1", TZ: "Europe/Berlin"}

func newSvcWorld(t *testing.T, d *db.DB) *svcWorld {
	t.Helper()
	w := &svcWorld{t: t, ctx: context.Background(), clock: time.Date(2030, 3, 1, 12, 0, 0, 0, time.UTC)}
	now := func() time.Time { return w.clock }
	w.s = NewService(NewStore(d, now), now,
		func(id string, v int64, _ *time.Time, kind string) { w.changes = append(w.changes, id+" "+kind) },
		func(id string) { w.deleted = append(w.deleted, id) })
	var err error
	if w.p, err = w.s.CreatePoll(w.ctx, svcPollInput); err != nil {
		t.Fatal(err)
	}
	if w.ada, err = w.s.Join(w.ctx, w.p.ID, "Ada"); err != nil {
		t.Fatal(err)
	}
	if w.bob, err = w.s.Join(w.ctx, w.p.ID, "Bob"); err != nil {
		t.Fatal(err)
	}
	if _, _, err = w.s.AddTimeframe(w.ctx, w.own(w.ada), svcTimeframe); err != nil {
		t.Fatal(err)
	}
	tfs, err := w.s.store.ParticipantTimeframes(w.ctx, w.p.ID, w.ada.ID)
	if err != nil || len(tfs) != 1 {
		t.Fatalf("Ada's timeframes: %v, %v", tfs, err)
	}
	w.adaTF = tfs[0].ID
	w.changes = nil
	return w
}

func (w *svcWorld) admin() AdminKey { return AdminKey{Poll: w.p.ID, Token: w.p.AdminToken} }

func (w *svcWorld) own(pt *Participant) OwnKey {
	return OwnKey{Poll: w.p.ID, Participant: pt.ID, Token: pt.EditToken}
}

// version is the poll's version now: a refused call must leave it as is.
func (w *svcWorld) version() int64 {
	w.t.Helper()
	v, _, err := w.s.store.Version(w.ctx, w.p.ID)
	if err != nil {
		w.t.Fatal(err)
	}
	return v
}

// adminCalls are every organizer method, as one call with key k.
var adminCalls = map[string]func(w *svcWorld, k AdminKey) error{
	"Admin": func(w *svcWorld, k AdminKey) error { _, err := w.s.Admin(w.ctx, k); return err },
	"OrganizerPage": func(w *svcWorld, k AdminKey) error {
		_, tokens, err := w.s.OrganizerPage(w.ctx, k)
		if err == nil && (tokens[w.ada.ID] != w.ada.EditToken || tokens[w.bob.ID] != w.bob.EditToken) {
			return errors.New("the organizer's page lacks the private links")
		}
		return err
	},
	"UpdatePoll": func(w *svcWorld, k AdminKey) error {
		in := svcPollInput
		in.Title = "Hijacked"
		_, err := w.s.UpdatePoll(w.ctx, k, in, "")
		return err
	},
	"ClosePoll": func(w *svcWorld, k AdminKey) error {
		_, err := w.s.ClosePoll(w.ctx, k, CloseInput{Choice: "other", Date: "2030-03-02", Time: "09:00", TZ: "Europe/Berlin"})
		return err
	},
	"ReopenPoll":    func(w *svcWorld, k AdminKey) error { _, err := w.s.ReopenPoll(w.ctx, k); return err },
	"DuplicatePoll": func(w *svcWorld, k AdminKey) error { _, err := w.s.DuplicatePoll(w.ctx, k); return err },
	"DeletePoll":    func(w *svcWorld, k AdminKey) error { return w.s.DeletePoll(w.ctx, k) },
	"RemoveParticipant": func(w *svcWorld, k AdminKey) error {
		_, err := w.s.RemoveParticipant(w.ctx, k, w.ada.ID)
		return err
	},
}

// ownCalls are every participant method, as one call with key k.
var ownCalls = map[string]func(w *svcWorld, k OwnKey) error{
	"Own": func(w *svcWorld, k OwnKey) error { _, _, err := w.s.Own(w.ctx, k); return err },
	"OwnPage": func(w *svcWorld, k OwnKey) error {
		d, err := w.s.OwnPage(w.ctx, k)
		if err == nil && (!d.Own || d.Who.ID != w.ada.ID || len(d.Timeframes) != 1) {
			return fmt.Errorf("OwnPage = %+v", d)
		}
		return err
	},
	"AddTimeframe": func(w *svcWorld, k OwnKey) error {
		in := svcTimeframe
		in.Start, in.End = "11:00", "12:00"
		_, _, err := w.s.AddTimeframe(w.ctx, k, in)
		return err
	},
	"DeleteTimeframe": func(w *svcWorld, k OwnKey) error {
		_, _, err := w.s.DeleteTimeframe(w.ctx, k, w.adaTF)
		return err
	},
	"ReplaceAvailability": func(w *svcWorld, k OwnKey) error {
		_, err := w.s.ReplaceAvailability(w.ctx, k, []byte(`{"slots":[{"start":"2030-03-03T08:00:00Z","tier":2}]}`))
		return err
	},
	"AddComment": func(w *svcWorld, k OwnKey) error { _, _, err := w.s.AddComment(w.ctx, k, "Hello"); return err },
	"ImportBusy": func(w *svcWorld, k OwnKey) error {
		cal := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTAMP:20300101T000000Z\r\n" +
			"DTSTART:20300302T080000Z\r\nDTEND:20300302T090000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
		_, _, _, err := w.s.ImportBusy(w.ctx, k, strings.NewReader(cal))
		return err
	},
	"Leave": func(w *svcWorld, k OwnKey) error { _, err := w.s.Leave(w.ctx, k); return err },
}

// TestServiceAdminToken: every organizer method refuses any key but the
// poll's own admin token, as NotFound (the poll's existence is not
// revealed), and then writes and announces nothing.
func TestServiceAdminToken(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		keys := map[string]func(w *svcWorld, other *Poll) AdminKey{
			"wrong token":           func(w *svcWorld, _ *Poll) AdminKey { return AdminKey{Poll: w.p.ID, Token: w.p.AdminToken + "x"} },
			"empty token":           func(w *svcWorld, _ *Poll) AdminKey { return AdminKey{Poll: w.p.ID} },
			"participant's token":   func(w *svcWorld, _ *Poll) AdminKey { return AdminKey{Poll: w.p.ID, Token: w.ada.EditToken} },
			"another poll's token":  func(w *svcWorld, o *Poll) AdminKey { return AdminKey{Poll: w.p.ID, Token: o.AdminToken} },
			"token on another poll": func(w *svcWorld, o *Poll) AdminKey { return AdminKey{Poll: o.ID, Token: w.p.AdminToken} },
			"no such poll": func(w *svcWorld, _ *Poll) AdminKey {
				return AdminKey{Poll: strings.Repeat("Z", 22), Token: w.p.AdminToken}
			},
			"not a poll id": func(w *svcWorld, _ *Poll) AdminKey { return AdminKey{Poll: "../x", Token: w.p.AdminToken} },
		}
		for call, fn := range adminCalls {
			for name, key := range keys {
				t.Run(call+"/"+name, func(t *testing.T) {
					w := newSvcWorld(t, d)
					other, err := w.s.CreatePoll(w.ctx, svcPollInput)
					if err != nil {
						t.Fatal(err)
					}
					v := w.version()
					err = fn(w, key(w, other))
					if !errors.Is(err, errs.ErrNotFound) {
						t.Fatalf("err = %v; want ErrNotFound", err)
					}
					if got := w.version(); got != v || len(w.changes) > 0 || len(w.deleted) > 0 {
						t.Errorf("refused call wrote or announced: version %d -> %d, changes %v, deleted %v", v, got, w.changes, w.deleted)
					}
				})
			}
		}
		// With the right token each works, and each write is announced.
		for call, fn := range adminCalls {
			t.Run(call+"/right token", func(t *testing.T) {
				w := newSvcWorld(t, d)
				if err := fn(w, w.admin()); err != nil {
					t.Fatalf("err = %v", err)
				}
			})
		}
	}, Migrations)
}

// TestServiceOwnToken: every participant method refuses any key but the
// participant's own private token, as NotFound, and then writes nothing.
func TestServiceOwnToken(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		keys := map[string]func(w *svcWorld) OwnKey{
			"wrong token":         func(w *svcWorld) OwnKey { k := w.own(w.ada); k.Token += "x"; return k },
			"empty token":         func(w *svcWorld) OwnKey { k := w.own(w.ada); k.Token = ""; return k },
			"another's token":     func(w *svcWorld) OwnKey { k := w.own(w.ada); k.Token = w.bob.EditToken; return k },
			"admin token":         func(w *svcWorld) OwnKey { k := w.own(w.ada); k.Token = w.p.AdminToken; return k },
			"no participant id":   func(w *svcWorld) OwnKey { k := w.own(w.ada); k.Participant = 0; return k },
			"no such participant": func(w *svcWorld) OwnKey { k := w.own(w.ada); k.Participant = w.bob.ID + 100; return k },
			"no such poll":        func(w *svcWorld) OwnKey { k := w.own(w.ada); k.Poll = strings.Repeat("Z", 22); return k },
			"participant of another": func(w *svcWorld) OwnKey {
				o := newSvcWorld(w.t, w.s.store.db)
				k := o.own(o.ada)
				k.Poll = w.p.ID
				return k
			},
		}
		for call, fn := range ownCalls {
			for name, key := range keys {
				t.Run(call+"/"+name, func(t *testing.T) {
					w := newSvcWorld(t, d)
					k := key(w)
					v := w.version()
					if err := fn(w, k); !errors.Is(err, errs.ErrNotFound) {
						t.Fatalf("err = %v; want ErrNotFound", err)
					}
					if got := w.version(); got != v || len(w.changes) > 0 {
						t.Errorf("refused call wrote or announced: version %d -> %d, changes %v", v, got, w.changes)
					}
					busy, err := w.s.store.Busy(w.ctx, w.ada.ID)
					if err != nil || len(busy) > 0 {
						t.Errorf("Ada's busy times = %v, %v; want none", busy, err)
					}
				})
			}
		}
		for call, fn := range ownCalls {
			t.Run(call+"/right token", func(t *testing.T) {
				w := newSvcWorld(t, d)
				if err := fn(w, w.own(w.ada)); err != nil {
					t.Fatalf("err = %v", err)
				}
			})
		}
	}, Migrations)
}

// TestServiceLocked: once the poll is closed or its deadline has passed,
// every change of answers is refused with ErrLocked (before its input is
// looked at) and nothing is written;
// importing busy times (private, not answers) and reading still work.
func TestServiceLocked(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		locks := map[string]func(w *svcWorld){
			"closed": func(w *svcWorld) {
				if _, err := adminCallsClose(w); err != nil {
					w.t.Fatal(err)
				}
			},
			"past deadline": func(w *svcWorld) { w.clock = *w.p.Deadline },
		}
		calls := map[string]func(w *svcWorld) error{
			"Join": func(w *svcWorld) error { _, err := w.s.Join(w.ctx, w.p.ID, "Carol"); return err },
			// The lock is decided before the input is looked at.
			"AddTimeframe bad input": func(w *svcWorld) error {
				_, _, err := w.s.AddTimeframe(w.ctx, w.own(w.ada), TimeframeInput{Tier: "7"})
				return err
			},
			"ReplaceAvailability bad input": func(w *svcWorld) error {
				_, err := w.s.ReplaceAvailability(w.ctx, w.own(w.ada), []byte("{"))
				return err
			},
			"AddComment bad input": func(w *svcWorld) error { _, _, err := w.s.AddComment(w.ctx, w.own(w.ada), ""); return err },
		}
		for name, fn := range ownCalls {
			calls[name] = func(w *svcWorld) error { return fn(w, w.own(w.ada)) }
		}
		allowed := map[string]bool{"Own": true, "OwnPage": true, "ImportBusy": true}
		for lock, lockIt := range locks {
			for call, fn := range calls {
				t.Run(lock+"/"+call, func(t *testing.T) {
					w := newSvcWorld(t, d)
					lockIt(w)
					w.changes = nil
					if !w.s.Locked(w.p) && lock == "past deadline" {
						t.Fatal("the poll is not locked past its deadline")
					}
					v := w.version()
					err := fn(w)
					if allowed[call] {
						if err != nil {
							t.Fatalf("err = %v; want it allowed on a locked poll", err)
						}
						return
					}
					if !errors.Is(err, ErrLocked) || errs.KindOf(err) != errs.Conflict {
						t.Fatalf("err = %v; want ErrLocked", err)
					}
					if got := w.version(); got != v || len(w.changes) > 0 {
						t.Errorf("refused call wrote or announced: version %d -> %d, changes %v", v, got, w.changes)
					}
				})
			}
		}
	}, Migrations)
}

func adminCallsClose(w *svcWorld) (*Poll, error) {
	return w.s.ClosePoll(w.ctx, w.admin(), CloseInput{Choice: "other", Date: "2030-03-02", Time: "09:00", TZ: "Europe/Berlin"})
}

// TestServiceOthersTimeframes: a participant cannot delete another's
// timeframe, even with their own valid link; it stays.
func TestServiceOthersTimeframes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newSvcWorld(t, d)
		v := w.version()
		cases := []struct {
			name string
			id   int64
		}{{"Ada's timeframe", w.adaTF}, {"no such timeframe", w.adaTF + 1000}, {"not an id", 0}}
		for _, c := range cases {
			if _, _, err := w.s.DeleteTimeframe(w.ctx, w.own(w.bob), c.id); !errors.Is(err, errs.ErrNotFound) {
				t.Errorf("%s: Bob's delete: err = %v; want ErrNotFound", c.name, err)
			}
		}
		tfs, err := w.s.store.ParticipantTimeframes(w.ctx, w.p.ID, w.ada.ID)
		if err != nil || len(tfs) != 1 || tfs[0].ID != w.adaTF {
			t.Errorf("Ada's timeframes after Bob's deletes = %v, %v; want hers kept", tfs, err)
		}
		if got := w.version(); got != v || len(w.changes) > 0 {
			t.Errorf("refused deletes wrote or announced: version %d -> %d, changes %v", v, got, w.changes)
		}
		// Bob painting his grid leaves Ada's answers alone.
		if _, err := w.s.ReplaceAvailability(w.ctx, w.own(w.bob), []byte(`{"slots":[]}`)); err != nil {
			t.Fatal(err)
		}
		if tfs, _ := w.s.store.ParticipantTimeframes(w.ctx, w.p.ID, w.ada.ID); len(tfs) != 1 {
			t.Errorf("Ada's timeframes after Bob cleared his grid = %v", tfs)
		}
		// Ada can delete hers.
		if _, _, err := w.s.DeleteTimeframe(w.ctx, w.own(w.ada), w.adaTF); err != nil {
			t.Errorf("Ada's own delete: %v", err)
		}
	}, Migrations)
}

// TestServiceValidation: bad input is Invalid with the field's message, and
// nothing is written or announced.
func TestServiceValidation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		cases := []struct {
			name, field string
			call        func(w *svcWorld) error
		}{
			{"create without title", "title", func(w *svcWorld) error {
				in := svcPollInput
				in.Title = " "
				_, err := w.s.CreatePoll(w.ctx, in)
				return err
			}},
			{"edit with end before start", "end_date", func(w *svcWorld) error {
				in := svcPollInput
				in.EndDate = "2030-03-01"
				_, err := w.s.UpdatePoll(w.ctx, w.admin(), in, "")
				return err
			}},
			{"close outside the poll", "start", func(w *svcWorld) error {
				_, err := w.s.ClosePoll(w.ctx, w.admin(), CloseInput{Choice: "other", Date: "2030-03-09", Time: "09:00", TZ: "UTC"})
				return err
			}},
			{"join without a name", "name", func(w *svcWorld) error { _, err := w.s.Join(w.ctx, w.p.ID, "  "); return err }},
			{"timeframe with a bad tier", "tier", func(w *svcWorld) error {
				in := svcTimeframe
				in.Tier = "7"
				_, _, err := w.s.AddTimeframe(w.ctx, w.own(w.ada), in)
				return err
			}},
			{"grid with a stranger slot", "slots", func(w *svcWorld) error {
				_, err := w.s.ReplaceAvailability(w.ctx, w.own(w.ada), []byte(`{"slots":[{"start":"2030-03-09T08:00:00Z","tier":1}]}`))
				return err
			}},
			{"empty comment", "body", func(w *svcWorld) error { _, _, err := w.s.AddComment(w.ctx, w.own(w.ada), ""); return err }},
			{"no calendar", "calendar", func(w *svcWorld) error { _, _, _, err := w.s.ImportBusy(w.ctx, w.own(w.ada), nil); return err }},
			{"not a calendar", "calendar", func(w *svcWorld) error {
				_, _, _, err := w.s.ImportBusy(w.ctx, w.own(w.ada), strings.NewReader("hello"))
				return err
			}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				w := newSvcWorld(t, d)
				v := w.version()
				err := c.call(w)
				e := errs.As(err)
				if e.Kind != errs.Invalid || e.Fields[c.field] == "" {
					t.Fatalf("err = %v (kind %d, fields %v); want Invalid on %q", err, e.Kind, e.Fields, c.field)
				}
				if got := w.version(); got != v || len(w.changes) > 0 {
					t.Errorf("refused call wrote or announced: version %d -> %d, changes %v", v, got, w.changes)
				}
			})
		}
	}, Migrations)
}

// TestServiceAnnounces: each successful write is announced once, after the
// commit, with what changed; a deletion is announced as such.
func TestServiceAnnounces(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		cases := []struct {
			name, kind string
			call       func(w *svcWorld) error
		}{
			{"join", "answers", func(w *svcWorld) error { _, err := w.s.Join(w.ctx, w.p.ID, "Carol"); return err }},
			{"add timeframe", "answers", func(w *svcWorld) error { return ownCalls["AddTimeframe"](w, w.own(w.ada)) }},
			{"delete timeframe", "answers", func(w *svcWorld) error { return ownCalls["DeleteTimeframe"](w, w.own(w.ada)) }},
			{"paint", "answers", func(w *svcWorld) error { return ownCalls["ReplaceAvailability"](w, w.own(w.ada)) }},
			{"comment", "answers", func(w *svcWorld) error { return ownCalls["AddComment"](w, w.own(w.ada)) }},
			{"leave", "answers", func(w *svcWorld) error { return ownCalls["Leave"](w, w.own(w.ada)) }},
			{"remove", "answers", func(w *svcWorld) error { return adminCalls["RemoveParticipant"](w, w.admin()) }},
			{"edit", "poll", func(w *svcWorld) error { return adminCalls["UpdatePoll"](w, w.admin()) }},
			{"close", "poll", func(w *svcWorld) error { return adminCalls["ClosePoll"](w, w.admin()) }},
			{"reopen", "poll", func(w *svcWorld) error { return adminCalls["ReopenPoll"](w, w.admin()) }},
			{"import busy", "", func(w *svcWorld) error { return ownCalls["ImportBusy"](w, w.own(w.ada)) }},
			{"duplicate", "", func(w *svcWorld) error { return adminCalls["DuplicatePoll"](w, w.admin()) }},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				w := newSvcWorld(t, d)
				if err := c.call(w); err != nil {
					t.Fatal(err)
				}
				want := []string{}
				if c.kind != "" {
					want = append(want, w.p.ID+" "+c.kind)
				}
				if strings.Join(w.changes, ",") != strings.Join(want, ",") {
					t.Errorf("announced %v; want %v", w.changes, want)
				}
			})
		}
		t.Run("delete", func(t *testing.T) {
			w := newSvcWorld(t, d)
			if err := w.s.DeletePoll(w.ctx, w.admin()); err != nil {
				t.Fatal(err)
			}
			if len(w.deleted) != 1 || w.deleted[0] != w.p.ID {
				t.Errorf("deleted %v; want [%s]", w.deleted, w.p.ID)
			}
			if _, err := w.s.Poll(w.ctx, w.p.ID); !errors.Is(err, errs.ErrNotFound) {
				t.Errorf("deleted poll: %v", err)
			}
		})
	}, Migrations)
}

// TestServiceReads: the organizer's list keeps only polls whose remembered
// token matches; the calendar file exists only once the poll is closed.
func TestServiceReads(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newSvcWorld(t, d)
		other, err := w.s.CreatePoll(w.ctx, svcPollInput)
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name string
			keys []AdminKey
			want []string
		}{
			{"none", nil, nil},
			{"both", []AdminKey{w.admin(), {Poll: other.ID, Token: other.AdminToken}}, []string{w.p.ID, other.ID}},
			{"wrong token", []AdminKey{{Poll: w.p.ID, Token: "nope"}, {Poll: other.ID, Token: other.AdminToken}}, []string{other.ID}},
			{"swapped tokens", []AdminKey{{Poll: w.p.ID, Token: other.AdminToken}, {Poll: other.ID, Token: w.p.AdminToken}}, nil},
			{"empty token", []AdminKey{{Poll: w.p.ID}}, nil},
			{"participant's token", []AdminKey{{Poll: w.p.ID, Token: w.ada.EditToken}}, nil},
		}
		for _, c := range cases {
			polls, err := w.s.Organized(w.ctx, c.keys)
			got := map[string]bool{}
			for _, p := range polls {
				got[p.ID] = true
			}
			if err != nil || len(polls) != len(c.want) {
				t.Errorf("%s: Organized = %d polls, %v; want %v", c.name, len(polls), err, c.want)
			}
			for _, id := range c.want {
				if !got[id] {
					t.Errorf("%s: %s missing", c.name, id)
				}
			}
		}
		if _, _, _, err := w.s.Decision(w.ctx, w.p.ID); !errors.Is(err, ErrNotClosed) {
			t.Errorf("Decision of an open poll: %v; want ErrNotClosed", err)
		}
		if _, err := adminCallsClose(w); err != nil {
			t.Fatal(err)
		}
		p, start, end, err := w.s.Decision(w.ctx, w.p.ID)
		if err != nil || p.ID != w.p.ID || !start.Equal(time.Date(2030, 3, 2, 8, 0, 0, 0, time.UTC)) || end.Sub(start) != time.Hour {
			t.Errorf("Decision = %v %v-%v, %v", p, start, end, err)
		}
	}, Migrations)
}

// TestServicePublicPage: a participant's public page shows their answers
// but never their imported busy times, which their own page shows.
func TestServicePublicPage(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newSvcWorld(t, d)
		if err := ownCalls["ImportBusy"](w, w.own(w.ada)); err != nil {
			t.Fatal(err)
		}
		pub, err := w.s.PublicPage(w.ctx, w.p.ID, w.ada.ID)
		if err != nil || pub.Own || len(pub.Busy) != 0 || len(pub.Timeframes) != 1 {
			t.Fatalf("PublicPage = %+v, %v; want her answers and no busy times", pub, err)
		}
		own, err := w.s.OwnPage(w.ctx, w.own(w.ada))
		if err != nil || len(own.Busy) != 1 {
			t.Fatalf("OwnPage = %+v, %v; want her busy time", own, err)
		}
		for _, pid := range []int64{0, -1, w.bob.ID + 100} {
			if _, err := w.s.PublicPage(w.ctx, w.p.ID, pid); !errors.Is(err, errs.ErrNotFound) {
				t.Errorf("PublicPage(%d): %v; want ErrNotFound", pid, err)
			}
		}
	}, Migrations)
}
