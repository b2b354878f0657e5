package meet

import (
	"context"
	"errors"
	"io"

	"github.com/tutti-dev/tutti/internal/errs"
)

// The participants' side of the Service: join a poll by name, and with the
// private token give availability (timeframes, the painted grid), comment,
// import busy times or leave. Changes of answers are refused once the poll is
// locked.

// Join adds a participant named name to poll pollID, with a fresh private
// token, in one write transaction that reads nothing before: the version
// bump finds the poll missing (NotFound) or locked (ErrLocked). A bad name
// is Invalid (field "name"); a name already taken is Conflict.
func (s *Service) Join(ctx context.Context, pollID, name string) (*Participant, error) {
	if !validID(pollID) {
		return nil, errs.ErrNotFound
	}
	name, msg := ValidName(name)
	if msg != "" {
		return nil, invalid("name", msg)
	}
	pt := &Participant{PollID: pollID, Name: name, EditToken: token(16)}
	v, deadline, err := s.store.AddParticipant(ctx, pt)
	if err != nil {
		return nil, err
	}
	s.changed(pollID, v, deadline, "answers")
	return pt, nil
}

// TimeframeInput is the no-JavaScript availability form as typed: a date, a
// start and end time in zone TZ (the viewer's), and a tier.
type TimeframeInput struct {
	Date, Start, End, Tier, TZ string
}

// AddTimeframe adds the typed timeframe to the participant's availability
// (as one or two stored pieces: ParseTimeframe). Bad
// input, or a timeframe the store refuses (Conflict), comes back with field
// messages (keys: date, start, end, tier).
func (s *Service) AddTimeframe(ctx context.Context, k OwnKey, in TimeframeInput) (*Poll, *Participant, error) {
	p, pt, err := s.ownWrite(ctx, k)
	if err != nil {
		return p, pt, err
	}
	tfs, fields := ParseTimeframe(p, in.Date, in.Start, in.End, in.Tier, in.TZ)
	if len(fields) > 0 {
		return p, pt, errs.Fields(fields)
	}
	add := make([]*Timeframe, len(tfs))
	for i := range tfs {
		tfs[i].ParticipantID = pt.ID
		add[i] = &tfs[i]
	}
	v, err := s.store.AddTimeframe(ctx, p.ID, add...)
	if errs.KindOf(err) == errs.Conflict {
		e := errs.As(err)
		return p, pt, &errs.Error{Kind: errs.Conflict, Message: e.Message, Fields: map[string]string{"date": e.Message}, Err: err}
	}
	if err != nil {
		return p, pt, err
	}
	s.changed(p.ID, v, p.Deadline, "answers")
	return p, pt, nil
}

// DeleteTimeframe removes one of the participant's own timeframes; another
// participant's is NotFound.
func (s *Service) DeleteTimeframe(ctx context.Context, k OwnKey, id int64) (*Poll, *Participant, error) {
	p, pt, err := s.ownWrite(ctx, k)
	if err != nil {
		return p, pt, err
	}
	if id <= 0 {
		return p, pt, errs.ErrNotFound
	}
	v, err := s.store.DeleteTimeframe(ctx, p.ID, pt.ID, id)
	if err != nil {
		return p, pt, err
	}
	s.changed(p.ID, v, p.Deadline, "answers")
	return p, pt, nil
}

// Saved is what a replaced availability came to.
type Saved struct {
	Timeframes int   // the timeframes the painted slots merged into
	Version    int64 // the poll's version after the change
}

// ReplaceAvailability replaces the participant's availability with the
// painted grid, body (AvailabilityJSON). Bad input is Invalid (field
// "slots").
func (s *Service) ReplaceAvailability(ctx context.Context, k OwnKey, body []byte) (Saved, error) {
	p, pt, err := s.ownWrite(ctx, k)
	if err != nil {
		return Saved{}, err
	}
	tfs, err := ParseAvailability(p, body)
	if err != nil {
		return Saved{}, err
	}
	v, err := s.store.ReplaceAvailability(ctx, p.ID, pt.ID, tfs)
	if err != nil {
		return Saved{}, err
	}
	s.changed(p.ID, v, p.Deadline, "answers")
	return Saved{Timeframes: len(tfs), Version: v}, nil
}

// AddComment posts the participant's comment. Bad input is Invalid (field
// "body").
func (s *Service) AddComment(ctx context.Context, k OwnKey, body string) (*Poll, *Participant, error) {
	p, pt, err := s.ownWrite(ctx, k)
	if err != nil {
		return p, pt, err
	}
	body, msg := ValidComment(body)
	if msg != "" {
		return p, pt, invalid("body", msg)
	}
	v, err := s.store.AddComment(ctx, p.ID, &Comment{ParticipantID: pt.ID, Body: body})
	if err != nil {
		return p, pt, err
	}
	s.changed(p.ID, v, p.Deadline, "answers")
	return p, pt, nil
}

// ImportBusy reads an .ics calendar (nil: none was sent) and keeps its busy
// times within the poll's range, shown greyed on the participant's own grid;
// it returns how many it kept. Busy times are the participant's private
// help, not answers: they may be imported into a locked poll too, and the
// poll page does not change. A missing or unreadable calendar is Invalid
// (field "calendar").
func (s *Service) ImportBusy(ctx context.Context, k OwnKey, calendar io.Reader) (*Poll, *Participant, int, error) {
	p, pt, err := s.Own(ctx, k)
	if err != nil {
		return nil, nil, 0, err
	}
	if calendar == nil {
		return p, pt, 0, invalid("calendar", "Choose an .ics file to import.")
	}
	from, to := p.Range()
	busy, err := ParseBusy(ctx, calendar, from, to, MaxBusy)
	if err != nil {
		var ce *CalendarError
		if errors.As(err, &ce) {
			return p, pt, 0, invalid("calendar", ce.Error())
		}
		return p, pt, 0, err
	}
	if err := s.store.ReplaceBusy(ctx, pt.ID, busy); err != nil {
		return p, pt, 0, err
	}
	return p, pt, len(busy), nil
}

// Leave removes the participant (their own choice).
func (s *Service) Leave(ctx context.Context, k OwnKey) (*Poll, error) {
	p, pt, err := s.ownWrite(ctx, k)
	if err != nil {
		return p, err
	}
	v, err := s.store.RemoveParticipant(ctx, p.ID, pt.ID)
	if err != nil {
		return p, err
	}
	s.changed(p.ID, v, p.Deadline, "answers")
	return p, nil
}
