package race

import (
	"context"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/race/races"
)

// What runners are told of the changes that touch them beyond their own
// registration (notices.go): a start time or a place changed by a
// director (a lottery's draw, a waiting list's invitation and its expiry:
// package waitlist, through App.tellLetters). Each is told in the
// transaction of the change.

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
			Body: "Hello " + reg.FirstName + ",\n\nThe start of " + r.Name + ", " + e.Name + " has moved. It was " + races.NoticeClock(was, r.TZ) +
				"; it is now " + races.NoticeClock(e.StartsAt, r.TZ) + ".\n\nYour registration stands: you need do nothing.",
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
