package meet

import (
	"context"
	"errors"

	"github.com/tutti-dev/tutti/internal/errs"
)

// The organizer's side of the Service: create a poll, and with the admin
// token edit, close, reopen, duplicate or delete it, or remove a participant.

// CreatePoll validates in and creates the poll with a fresh id and admin
// token. Bad input is Invalid with the fields' messages.
func (s *Service) CreatePoll(ctx context.Context, in PollInput) (*Poll, error) {
	p, fields := in.Validate(s.now())
	if len(fields) > 0 {
		return nil, errs.Fields(fields)
	}
	p.ID, p.AdminToken = token(16), token(24)
	if err := s.store.CreatePoll(ctx, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// PollEdit is what an organizer's edit did, or would do.
type PollEdit struct {
	Poll *Poll // the poll as it was: set once the admin token checked out
	// Lost are the stretches of answers the edit took away, or (with
	// ErrEditLoses) would take away; People names their participants then.
	Lost   []Timeframe
	People []Participant
}

// UpdatePoll saves the organizer's edit. Answers keep their instants and are
// clipped to the new dates, daily hours and zone; an edit that takes any away
// is refused with ErrEditLoses (and the loss, to show) unless confirm is the
// LossToken of exactly that loss. Bad input is Invalid with the fields'
// messages.
func (s *Service) UpdatePoll(ctx context.Context, k AdminKey, in PollInput, confirm string) (*PollEdit, error) {
	p, err := s.Admin(ctx, k)
	if err != nil {
		return nil, err
	}
	ed := &PollEdit{Poll: p}
	np, fields := in.Validate(s.now())
	if len(fields) > 0 {
		return ed, errs.Fields(fields)
	}
	np.ID, np.AdminToken = p.ID, p.AdminToken
	v, lost, err := s.store.UpdatePoll(ctx, &np, confirm)
	ed.Lost = lost
	if errors.Is(err, ErrEditLoses) {
		if ed.People, err = s.store.Participants(ctx, p.ID); err != nil {
			return ed, err
		}
		return ed, ErrEditLoses
	}
	if err != nil {
		return ed, err
	}
	s.changed(p.ID, v, np.Deadline, "poll")
	return ed, nil
}

// ClosePoll records the meeting the organizer chose, any start and length
// the poll holds (see CloseInput.Validate, whose messages come back Invalid).
func (s *Service) ClosePoll(ctx context.Context, k AdminKey, in CloseInput) (*Poll, error) {
	p, err := s.Admin(ctx, k)
	if err != nil {
		return nil, err
	}
	start, end, fields := in.Validate(p)
	if len(fields) > 0 {
		return p, errs.Fields(fields)
	}
	v, err := s.store.ClosePoll(ctx, p.ID, &start, &end)
	if err != nil {
		return p, err
	}
	s.changed(p.ID, v, p.Deadline, "poll")
	return p, nil
}

// ReopenPoll undoes a close.
func (s *Service) ReopenPoll(ctx context.Context, k AdminKey) (*Poll, error) {
	p, err := s.Admin(ctx, k)
	if err != nil {
		return nil, err
	}
	v, err := s.store.ClosePoll(ctx, p.ID, nil, nil)
	if err != nil {
		return p, err
	}
	s.changed(p.ID, v, p.Deadline, "poll")
	return p, nil
}

// DuplicatePoll makes a new poll with the same settings and no answers, open
// (a deadline already past is dropped); it returns the new poll.
func (s *Service) DuplicatePoll(ctx context.Context, k AdminKey) (*Poll, error) {
	p, err := s.Admin(ctx, k)
	if err != nil {
		return nil, err
	}
	np := *p
	np.ID, np.AdminToken = token(16), token(24)
	np.Title = truncateRunes("Copy of "+p.Title, MaxTitle)
	np.ClosedStart, np.ClosedEnd = nil, nil
	if np.Deadline != nil && !np.Deadline.After(s.now()) {
		np.Deadline = nil
	}
	if err := s.store.CreatePoll(ctx, &np); err != nil {
		return nil, err
	}
	return &np, nil
}

// DeletePoll removes the poll for good.
func (s *Service) DeletePoll(ctx context.Context, k AdminKey) error {
	p, err := s.Admin(ctx, k)
	if err != nil {
		return err
	}
	if err := s.store.DeletePoll(ctx, p.ID); err != nil {
		return err
	}
	s.deleted(p.ID)
	return nil
}

// RemoveParticipant lets the organizer remove participant pid's entry.
func (s *Service) RemoveParticipant(ctx context.Context, k AdminKey, pid int64) (*Poll, error) {
	p, err := s.Admin(ctx, k)
	if err != nil {
		return nil, err
	}
	if pid <= 0 {
		return p, errs.ErrNotFound
	}
	v, err := s.store.RemoveParticipant(ctx, p.ID, pid)
	if err != nil {
		return p, err
	}
	s.changed(p.ID, v, p.Deadline, "answers")
	return p, nil
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}
