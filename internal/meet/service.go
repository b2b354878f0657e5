package meet

import (
	"context"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Service is meet's middle layer, between the handlers and the Store. It
// owns every decision: who may do what (the organizer's admin token, a
// participant's private token, the lock of a closed or past-deadline poll),
// validation of what was typed, the write itself, and telling the poll's open
// pages after a successful commit. Handlers parse the request, call one
// Service method and render or redirect; they make no decision of their own.
//
// Errors are errs-kinded, with messages safe to show: a poll, participant or
// token that does not match is NotFound (a wrong token never reveals that
// the poll exists), a locked poll is Conflict (ErrLocked), bad input is
// Invalid with field messages. Methods that act for the organizer or a
// participant return the poll (and participant) as soon as the credentials
// checked out, even with an Invalid or Conflict error, so that the handler
// can render the form again.
type Service struct {
	store *Store
	now   func() time.Time
	// changed is told after each committed change to poll id: its new
	// version and deadline, and what changed (see pollEvent.Kind).
	changed func(id string, v int64, deadline *time.Time, kind string)
	// deleted is told after poll id is deleted.
	deleted func(id string)
}

// NewService builds a service over store; changed and deleted may be nil.
func NewService(store *Store, now func() time.Time, changed func(string, int64, *time.Time, string), deleted func(string)) *Service {
	if now == nil {
		now = time.Now
	}
	if changed == nil {
		changed = func(string, int64, *time.Time, string) {}
	}
	if deleted == nil {
		deleted = func(string) {}
	}
	return &Service{store: store, now: now, changed: changed, deleted: deleted}
}

// AdminKey is the organizer's credentials: the poll id and admin token of
// their private link.
type AdminKey struct {
	Poll, Token string
}

// OwnKey is a participant's credentials: the poll id, their id (0 when the
// link's was not a positive number) and the token of their private link.
type OwnKey struct {
	Poll        string
	Participant int64
	Token       string
}

// opens reports whether the key is poll p's admin link.
func (k AdminKey) opens(p *Poll) bool { return k.Poll == p.ID && sameSecret(k.Token, p.AdminToken) }

// opens reports whether the key's token is participant pt's.
func (k OwnKey) opens(pt *Participant) bool { return sameSecret(k.Token, pt.EditToken) }

// participantRef reports whether pollID and pid can name a participant.
func participantRef(pollID string, pid int64) bool { return validID(pollID) && pid > 0 }

// Poll returns the poll with id; an id that cannot be one is NotFound
// without asking the database.
func (s *Service) Poll(ctx context.Context, id string) (*Poll, error) {
	if !validID(id) {
		return nil, errs.ErrNotFound
	}
	return s.store.Poll(ctx, id)
}

// Admin returns the poll whose admin token k holds. A wrong token is
// NotFound, like a missing poll.
func (s *Service) Admin(ctx context.Context, k AdminKey) (*Poll, error) {
	p, err := s.Poll(ctx, k.Poll)
	if err != nil {
		return nil, err
	}
	if !k.opens(p) {
		return nil, errs.ErrNotFound // do not reveal that the poll exists
	}
	return p, nil
}

// Own returns the poll and the participant whose private link k is. A wrong
// token is NotFound, like a missing participant.
func (s *Service) Own(ctx context.Context, k OwnKey) (*Poll, *Participant, error) {
	p, pt, err := s.Participant(ctx, k.Poll, k.Participant)
	if err != nil {
		return nil, nil, err
	}
	if !k.opens(pt) {
		return nil, nil, errs.ErrNotFound
	}
	return p, pt, nil
}

// ownWrite is Own for a change of answers: refused (ErrLocked) once the poll
// is locked. The poll and participant come back with ErrLocked.
func (s *Service) ownWrite(ctx context.Context, k OwnKey) (*Poll, *Participant, error) {
	p, pt, err := s.Own(ctx, k)
	if err != nil {
		return nil, nil, err
	}
	if s.Locked(p) {
		return p, pt, ErrLocked
	}
	return p, pt, nil
}

// Participant returns the poll and its participant pid, for their public
// page.
func (s *Service) Participant(ctx context.Context, pollID string, pid int64) (*Poll, *Participant, error) {
	if !participantRef(pollID, pid) {
		return nil, nil, errs.ErrNotFound
	}
	return s.store.PollParticipant(ctx, pollID, pid)
}

// Locked reports whether the poll no longer takes answers: it is closed, or
// its deadline has passed.
func (s *Service) Locked(p *Poll) bool {
	return p.ClosedStart != nil || (p.Deadline != nil && !s.now().Before(*p.Deadline))
}

// invalid is an Invalid error for one field, whose message is also the
// error's.
func invalid(field, msg string) *errs.Error {
	return &errs.Error{Kind: errs.Invalid, Message: msg, Fields: map[string]string{field: msg}}
}
