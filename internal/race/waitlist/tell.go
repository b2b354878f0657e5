package waitlist

import (
	"context"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/race/races"
)

// What runners are told of the waiting list, each in the transaction of
// the change (Deps.Tell): a lottery's draw, an invitation and its expiry.

// tellDrawn tells every entrant of draw d: drawn (their place kept, and
// until when), not drawn (how many wait before them), or on the list
// after the draw.
func (s *Service) tellDrawn(ctx context.Context, tx *db.Tx, d drawn) error {
	about, err := s.store.abouts(ctx, tx, []int64{d.EventID})
	if err != nil {
		return err
	}
	x := about[d.EventID]
	what := x.Race + ", " + x.Event
	page := LotteryURL(x.Slug, d.EventID)
	return s.tell(ctx, tx, len(d.Entries), func(i int) Letter {
		e := d.Entries[i]
		n := Letter{UserID: e.UserID, RaceID: x.RaceID, EventID: d.EventID, Link: page, LinkText: "Your place on the list", To: e.Email, Base: e.Base}
		switch {
		case i < d.Invited:
			n.Subject = "You were drawn: " + x.Race + " · " + x.Event
			n.Body = "Hello,\n\nThe places in " + what + " were drawn, and you have one. It is kept for you until " + races.NoticeClock(d.Until, x.TZ) +
				": take it and register as usual by then, or it goes to the next entrant in the drawn order."
			n.LinkText = "Take your place"
		case e.Entered:
			n.Subject = "Not drawn: " + x.Race + " · " + x.Event
			n.Body = "Hello,\n\nThe places in " + what + " were drawn, and you were not drawn. You wait for a place that comes back, in the drawn order: " +
				aheadWords(i-d.Invited) + "\n\nWhen a place comes back to you we keep it for " + s.inviteHours() + " and e-mail you a link."
		default:
			n.Subject = "On the list after the draw: " + x.Race + " · " + x.Event
			n.Body = "Hello,\n\nThe places in " + what + " were drawn among the runners who entered by " + races.NoticeClock(d.DrawAt, x.TZ) +
				". You entered after that, so you wait on the list after the draw: " + aheadWords(i-d.Invited) +
				"\n\nWhen a place comes back to you we keep it for " + s.inviteHours() + " and e-mail you a link."
		}
		return n
	})
}

// aheadWords is how many wait before a runner, as a sentence.
func aheadWords(n int) string {
	if n <= 0 {
		return "you are next in line."
	}
	return strconv.Itoa(n) + " " + races.Plural(int64(n), "runner", "runners") + " before you."
}

// inviteHours is how long an invitation keeps its place, in words.
func (s *Service) inviteHours() string {
	h := int(s.inviteFor / time.Hour)
	if h == 1 {
		return "an hour"
	}
	return strconv.Itoa(h) + " hours"
}

// tellInvited tells the runners whose invitations expired that their
// place went on, and the runners invited that a place is kept for them
// (until when, and the link to take it).
func (s *Service) tellInvited(ctx context.Context, tx *db.Tx, expired, invited []invitation) error {
	ids := make([]int64, 0, len(expired)+len(invited))
	for _, in := range expired {
		ids = append(ids, in.EventID)
	}
	for _, in := range invited {
		ids = append(ids, in.EventID)
	}
	about, err := s.store.abouts(ctx, tx, ids)
	if err != nil {
		return err
	}
	if err := s.tell(ctx, tx, len(expired), func(i int) Letter {
		in := expired[i]
		x := about[in.EventID]
		return Letter{UserID: in.UserID, RaceID: x.RaceID, EventID: in.EventID,
			Subject: "Invitation expired: " + x.Race + " · " + x.Event,
			Body: "Hello,\n\nYour invitation to take a place in " + x.Race + ", " + x.Event + " ran out on " + races.NoticeClock(in.ExpiresAt, x.TZ) +
				" without being used, so the place it kept went to the next runner. You are no longer on the waiting list.",
			Link: races.URL(x.Slug), LinkText: "The race", To: in.Email, Base: in.Base}
	}); err != nil {
		return err
	}
	return s.tell(ctx, tx, len(invited), func(i int) Letter {
		in := invited[i]
		x := about[in.EventID]
		return Letter{UserID: in.UserID, RaceID: x.RaceID, EventID: in.EventID,
			Subject: "A place for you: " + x.Race + " · " + x.Event,
			Body: "Hello,\n\nA place in " + x.Race + ", " + x.Event + " has come free, and it is kept for you until " + races.NoticeClock(in.ExpiresAt, x.TZ) +
				": take it and register as usual by then.\n\nIf you do not want it, do nothing: it goes to the next runner on the list.",
			Link: SoldOutURL(x.Slug, in.EventID), LinkText: "Take your place", To: in.Email, Base: in.Base}
	})
}
