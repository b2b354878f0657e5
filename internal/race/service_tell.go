package race

import (
	"context"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// What runners are told of the changes that touch them beyond their own
// registration (notices.go): a lottery's draw, a waiting list's
// invitation and its expiry, a start time or a place changed by a
// director. Each is told in the transaction of the change.

// tellDrawn tells every entrant of draw d: drawn (their place kept, and
// until when), not drawn (how many wait before them), or on the list
// after the draw.
func (s *Service) tellDrawn(ctx context.Context, tx *db.Tx, d Drawn) error {
	about, err := s.store.EventsAbout(ctx, tx, []int64{d.EventID})
	if err != nil {
		return err
	}
	x := about[d.EventID]
	what := x.Race + ", " + x.Event
	page := lotteryURL(x.Slug, d.EventID)
	return s.tell(ctx, tx, len(d.Entries), func(i int) letter {
		e := d.Entries[i]
		n := Notice{UserID: e.UserID, RaceID: x.RaceID, EventID: d.EventID, Link: page, LinkText: "Your place on the list"}
		switch {
		case i < d.Invited:
			n.Subject = "You were drawn: " + x.Race + " · " + x.Event
			n.Body = "Hello,\n\nThe places in " + what + " were drawn, and you have one. It is kept for you until " + raceClock(d.Until, x.TZ) +
				": take it and register as usual by then, or it goes to the next entrant in the drawn order."
			n.LinkText = "Take your place"
		case e.Entered:
			n.Subject = "Not drawn: " + x.Race + " · " + x.Event
			n.Body = "Hello,\n\nThe places in " + what + " were drawn, and you were not drawn. You wait for a place that comes back, in the drawn order: " +
				aheadWords(i-d.Invited) + "\n\nWhen a place comes back to you we keep it for " + s.inviteHours() + " and e-mail you a link."
		default:
			n.Subject = "On the list after the draw: " + x.Race + " · " + x.Event
			n.Body = "Hello,\n\nThe places in " + what + " were drawn among the runners who entered by " + raceClock(d.DrawAt, x.TZ) +
				". You entered after that, so you wait on the list after the draw: " + aheadWords(i-d.Invited) +
				"\n\nWhen a place comes back to you we keep it for " + s.inviteHours() + " and e-mail you a link."
		}
		return letter{n, e.Email, e.Base}
	})
}

// aheadWords is how many wait before a runner, as a sentence.
func aheadWords(n int) string {
	if n <= 0 {
		return "you are next in line."
	}
	return strconv.Itoa(n) + " " + plural(int64(n), "runner", "runners") + " before you."
}

// inviteHours is how long an invitation keeps its place, in words.
func (s *Service) inviteHours() string {
	h := int(s.inviteFor / time.Hour)
	if h == 1 {
		return "an hour"
	}
	return strconv.Itoa(h) + " hours"
}

// tellWaitlist tells the runners whose invitations expired that their
// place went on, and the runners invited that a place is kept for them
// (until when, and the link to take it).
func (s *Service) tellWaitlist(ctx context.Context, tx *db.Tx, expired, invited []Invitation) error {
	ids := make([]int64, 0, len(expired)+len(invited))
	for _, in := range expired {
		ids = append(ids, in.EventID)
	}
	for _, in := range invited {
		ids = append(ids, in.EventID)
	}
	about, err := s.store.EventsAbout(ctx, tx, ids)
	if err != nil {
		return err
	}
	if err := s.tell(ctx, tx, len(expired), func(i int) letter {
		in := expired[i]
		x := about[in.EventID]
		return letter{Notice{UserID: in.UserID, RaceID: x.RaceID, EventID: in.EventID,
			Subject: "Invitation expired: " + x.Race + " · " + x.Event,
			Body: "Hello,\n\nYour invitation to take a place in " + x.Race + ", " + x.Event + " ran out on " + raceClock(in.ExpiresAt, x.TZ) +
				" without being used, so the place it kept went to the next runner. You are no longer on the waiting list.",
			Link: raceURL(x.Slug), LinkText: "The race"}, in.Email, in.Base}
	}); err != nil {
		return err
	}
	return s.tell(ctx, tx, len(invited), func(i int) letter {
		in := invited[i]
		x := about[in.EventID]
		return letter{Notice{UserID: in.UserID, RaceID: x.RaceID, EventID: in.EventID,
			Subject: "A place for you: " + x.Race + " · " + x.Event,
			Body: "Hello,\n\nA place in " + x.Race + ", " + x.Event + " has come free, and it is kept for you until " + raceClock(in.ExpiresAt, x.TZ) +
				": take it and register as usual by then.\n\nIf you do not want it, do nothing: it goes to the next runner on the list.",
			Link: soldOutURL(x.Slug, in.EventID), LinkText: "Take your place"}, in.Email, in.Base}
	})
}

// tellRegistrants tells every runner registered for event eventID (their
// registration confirmed) what write makes of their registration, in tx;
// it returns how many were told.
func (s *Service) tellRegistrants(ctx context.Context, tx *db.Tx, eventID int64, write func(reg Registration) letter) (int, error) {
	tx.AfterCommit(s.mailed)
	return s.eachRegistrants(ctx, tx, eventID, func(regs []Registration) error {
		return s.letters(ctx, tx, len(regs), func(i int) letter { return write(regs[i]) })
	})
}

// eachRegistrants runs batch on the registrations of event eventID that
// are confirmed, noticeRows at a time in id order (a keyset over the
// index race_registrations_event), read in tx; it returns how many there
// were.
func (s *Service) eachRegistrants(ctx context.Context, tx *db.Tx, eventID int64, batch func(regs []Registration) error) (int, error) {
	n := 0
	for after := int64(0); ; {
		regs, err := s.store.ActiveRegistrants(ctx, tx, eventID, after, noticeRows)
		if err == nil && len(regs) > 0 {
			err = batch(regs)
		}
		if err != nil {
			return n, err
		}
		n += len(regs)
		if len(regs) < noticeRows {
			return n, nil
		}
		after = regs[len(regs)-1].ID
	}
}

// updateEvent stores event e of race r (validated) in tx and, when its
// start time moved, tells its runners the time it was and the time it is.
func (s *Service) updateEvent(ctx context.Context, tx *db.Tx, r *Race, e Event) error {
	was, err := s.store.LockedStart(ctx, tx, r.ID, e.ID)
	if err != nil {
		return err
	}
	if err := s.store.UpdateEvent(ctx, tx, e); err != nil || was.Equal(e.StartsAt) {
		return err
	}
	_, err = s.tellRegistrants(ctx, tx, e.ID, func(reg Registration) letter {
		return letter{Notice{UserID: reg.UserID, RaceID: r.ID, EventID: e.ID, RegistrationID: reg.ID,
			Subject: "Start time changed: " + r.Name + " · " + e.Name,
			Body: "Hello " + reg.FirstName + ",\n\nThe start of " + r.Name + ", " + e.Name + " has moved. It was " + raceClock(was, r.TZ) +
				"; it is now " + raceClock(e.StartsAt, r.TZ) + ".\n\nYour registration stands: you need do nothing.",
			Link: raceURL(r.Slug), LinkText: "The race"}, reg.Email, ""}
	})
	return err
}

// updateBasics stores the basics of race r (validated: nr) in tx and,
// when the place changed, tells every runner registered for one of its
// events where it was and where it is.
func (s *Service) updateBasics(ctx context.Context, tx *db.Tx, r *Race, nr Race) error {
	was, err := s.store.LockedLocation(ctx, tx, r.ID)
	if err != nil {
		return err
	}
	if err := s.store.UpdateBasics(ctx, tx, r.ID, nr); err != nil || was == nr.Location {
		return err
	}
	for _, e := range r.Events {
		if _, err := s.tellRegistrants(ctx, tx, e.ID, func(reg Registration) letter {
			return letter{Notice{UserID: reg.UserID, RaceID: r.ID, EventID: e.ID, RegistrationID: reg.ID,
				Subject: "Place changed: " + nr.Name + " · " + e.Name,
				Body: "Hello " + reg.FirstName + ",\n\n" + nr.Name + " has moved. It was to take place at " + was + "; it now takes place at " +
					nr.Location + ".\n\nYour registration for " + e.Name + " stands: you need do nothing.",
				Link: raceURL(r.Slug), LinkText: "The race"}, reg.Email, ""}
		}); err != nil {
			return err
		}
	}
	return nil
}
