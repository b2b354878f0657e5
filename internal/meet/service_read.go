package meet

import (
	"context"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// The Service's reads that decide something: which remembered polls the
// browser really organizes, and what a poll's public downloads may hold.

// Organized returns the polls among keys whose admin token matches: the
// polls this browser created. Keys that do not match are left out.
func (s *Service) Organized(ctx context.Context, keys []AdminKey) ([]Poll, error) {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.Poll
	}
	polls, err := s.store.PollsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	var own []Poll
	for _, p := range polls {
		for _, k := range keys {
			if k.opens(&p) {
				own = append(own, p)
			}
		}
	}
	return own, nil
}

// Answers returns the poll with every participant and timeframe, for the
// public CSV export.
func (s *Service) Answers(ctx context.Context, pollID string) (*Poll, []Participant, []Timeframe, error) {
	p, err := s.Poll(ctx, pollID)
	if err != nil {
		return nil, nil, nil, err
	}
	people, err := s.store.Participants(ctx, p.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	tfs, err := s.store.Timeframes(ctx, p.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, people, tfs, nil
}

// ErrNotClosed is the calendar file of a poll not closed on a time yet.
var ErrNotClosed = errs.E(errs.NotFound, "This poll has not been closed on a time yet.")

// Decision returns a closed poll with the meeting it was closed on;
// ErrNotClosed while it is open.
func (s *Service) Decision(ctx context.Context, pollID string) (p *Poll, start, end time.Time, err error) {
	if p, err = s.Poll(ctx, pollID); err != nil {
		return nil, start, end, err
	}
	if p.ClosedStart == nil || p.ClosedEnd == nil {
		return nil, start, end, ErrNotClosed
	}
	return p, *p.ClosedStart, *p.ClosedEnd, nil
}

// OrganizerPage returns the poll with what its page shows (every
// participant, the newest comments) and the secrets of its participants'
// private links (participant id -> token): only the organizer's page shows
// them. The poll is read with its rows, in one query: the key's token is
// checked on what comes back.
func (s *Service) OrganizerPage(ctx context.Context, k AdminKey) (*PollData, map[int64]string, error) {
	if !validID(k.Poll) {
		return nil, nil, errs.ErrNotFound
	}
	d, err := s.store.PollPage(ctx, k.Poll, db.Cursor{}, PageSize)
	if err != nil {
		return nil, nil, err
	}
	if !k.opens(d.Poll) {
		return nil, nil, errs.ErrNotFound // do not reveal that the poll exists
	}
	tokens, err := s.store.EditTokens(ctx, d.Poll.ID)
	if err != nil {
		return nil, nil, err
	}
	return d, tokens, nil
}

// ParticipantData is what a participant's page shows.
type ParticipantData struct {
	Poll       *Poll
	Who        *Participant
	Own        bool // their private edit page
	Locked     bool // the poll takes no more answers
	Timeframes []Timeframe
	Comments   []Comment // the latest 50
	Busy       []Busy    // their imported busy times: only on their own page
}

// PublicPage is participant pid's public, read-only page.
func (s *Service) PublicPage(ctx context.Context, pollID string, pid int64) (*ParticipantData, error) {
	return s.participantPage(ctx, pollID, pid, false)
}

// OwnPage is the participant's private edit page, with their busy times.
// It is read with the participant, in one query: the key's token is
// checked on what comes back.
func (s *Service) OwnPage(ctx context.Context, k OwnKey) (*ParticipantData, error) {
	d, err := s.participantPage(ctx, k.Poll, k.Participant, true)
	if err != nil {
		return nil, err
	}
	if !k.opens(d.Who) {
		return nil, errs.ErrNotFound
	}
	return d, nil
}

func (s *Service) participantPage(ctx context.Context, pollID string, pid int64, own bool) (*ParticipantData, error) {
	if !participantRef(pollID, pid) {
		return nil, errs.ErrNotFound
	}
	d, err := s.store.ParticipantPage(ctx, pollID, pid, own)
	if err != nil {
		return nil, err
	}
	d.Own, d.Locked = own, s.Locked(d.Poll)
	return d, nil
}
