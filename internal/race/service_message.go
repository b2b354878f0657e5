package race

import (
	"context"
	"errors"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/text"
)

// A director writes to every runner registered for an event, in one
// transaction: the message stored once, and for each runner a notice
// pointing to it and a job that mails it, the outbox sending them at the
// site's rate.

// MessageInput is the director's message form.
type MessageInput struct {
	Subject, Body string
}

// The limits of a director's message.
const (
	MaxMessageSubject = 120
	MaxMessageBody    = 5000
)

var (
	messageSubjectField = text.Field{Name: "The subject", Min: 3, Max: MaxMessageSubject, Empty: "Give the message a subject."}
	messageBodyField    = text.Field{Name: "The message", Min: 10, Max: MaxMessageBody, Multiline: true, Empty: "Write the message."}
	errNobodyToWrite    = errs.E(errs.Conflict, "Nobody is registered for this event: there is nobody to write to.")
)

// Validate cleans the message (fields subject, body); a refused field
// comes back as typed.
func (in MessageInput) Validate() (MessageInput, map[string]string) {
	f := map[string]string{}
	var msg string
	if in.Subject, msg = messageSubjectField.Clean(in.Subject); msg != "" {
		f["subject"] = msg
	}
	if in.Body, msg = messageBodyField.Clean(in.Body); msg != "" {
		f["body"] = msg
	}
	return in, f
}

// PreviewMessage is the message to event eventID's registrants as it
// would be sent, and how many registrants it would go to now, for the
// page that asks first: an invalid message is refused by field, an event
// nobody is registered for is a conflict.
func (s *Service) PreviewMessage(ctx context.Context, d *Directing, eventID int64, in MessageInput) (MessageInput, int, error) {
	e, ok := d.Race.Event(eventID)
	if !ok {
		return in, 0, errs.ErrNotFound
	}
	m, f := in.Validate()
	if len(f) > 0 {
		return in, 0, errs.Fields(f)
	}
	if e.Confirmed == 0 {
		return m, 0, errNobodyToWrite
	}
	return m, e.Confirmed, nil
}

// messageSubject is a message's subject as runners read it.
func messageSubject(r *Race, e *Event, m MessageInput) string {
	return r.Name + " · " + e.Name + ": " + m.Subject
}

// signOff ends a message: who it is from, and to whom.
func signOff(r *Race, e *Event) string {
	return "(From the directors of " + r.Name + ", to everyone registered for " + e.Name + ".)"
}

// messageKind is the job that mails a directors' message to one runner:
// the message is stored once (race_messages), and each runner's mail is
// written out when it is sent, at the outbox's rate (a job of a few
// bytes, not a copy of the message, per runner).
const messageKind = "race.message"

type messageJob struct {
	Message      int64 `json:"message"`
	Registration int64 `json:"registration"`
}

// WriteToRegistrants sends the message to every runner registered for
// event eventID now (their registration confirmed), in one transaction:
// the message stored once, then for each runner a notice pointing to it
// and the job that mails it, noticeRows a statement. It returns how many
// it went to.
func (s *Service) WriteToRegistrants(ctx context.Context, d *Directing, eventID int64, in MessageInput) (int, error) {
	e, ok := d.Race.Event(eventID)
	if !ok {
		return 0, errs.ErrNotFound
	}
	v, f := in.Validate()
	if len(f) > 0 {
		return 0, errs.Fields(f)
	}
	r := d.Race
	m := Message{RaceID: r.ID, EventID: e.ID, UserID: d.User.ID, Subject: messageSubject(r, e, v), Body: v.Body + "\n\n" + signOff(r, e)}
	if s.mail != nil {
		m.Base = s.mail.Base(ctx, "")
	}
	mails := s.mail != nil && s.jobs != nil
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		now := s.now()
		if err := s.store.AddMessage(ctx, tx, &m, now); err != nil {
			return err
		}
		var err error
		m.Sent, err = s.eachRegistrants(ctx, tx, e.ID, func(regs []Registration) error {
			ns := make([]Notice, len(regs))
			for i, reg := range regs {
				ns[i] = Notice{UserID: reg.UserID, RaceID: r.ID, EventID: e.ID, RegistrationID: reg.ID, Subject: m.Subject, MessageID: m.ID,
					Link: raceURL(r.Slug), LinkText: "The race"}
			}
			if err := s.store.AddNotices(ctx, tx, ns, now); err != nil || !mails {
				return err
			}
			return s.jobs.EnqueueMany(ctx, tx, messageKind, len(regs), func(i int) any { return messageJob{m.ID, regs[i].ID} })
		})
		if err != nil {
			return err
		}
		if m.Sent == 0 {
			return errNobodyToWrite
		}
		if mails {
			tx.AfterCommit(s.jobs.Notify)
		}
		return s.store.SetMessageSent(ctx, tx, m.ID, m.Sent)
	})
	return m.Sent, err
}

// mailMessage is the message job: the message as its runner reads it,
// their greeting first, sent at the outbox's rate; a message or a runner
// gone meanwhile (the race deleted, the account) is nobody to mail.
func (s *Service) mailMessage(ctx context.Context, j *jobs.Job) error {
	var in messageJob
	if err := j.Decode(&in); err != nil {
		return err
	}
	m, slug, reg, err := s.store.MessageTo(ctx, in.Message, in.Registration)
	if errors.Is(err, errs.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.mail.Send(ctx, s.letterMail(ctx, letter{Notice{Subject: m.Subject, Body: "Hello " + reg.FirstName + ",\n\n" + m.Body,
		Link: raceURL(slug), LinkText: "The race"}, reg.Email, m.Base}))
}

// Messages are the last messages sent to event eventID's registrants of
// the directed race, the newest first.
func (s *Service) Messages(ctx context.Context, d *Directing, eventID int64) ([]Message, error) {
	if _, ok := d.Race.Event(eventID); !ok {
		return nil, errs.ErrNotFound
	}
	return s.store.Messages(ctx, eventID, 20)
}
