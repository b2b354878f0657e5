package race

import (
	"context"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/text"
)

// A director writes to every runner registered for an event: one notice
// and one mail each (tell), all written in one transaction, the outbox
// sending them at the site's rate.

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

// WriteToRegistrants sends the message to every runner registered for
// event eventID now (their registration confirmed): a notice and a mail
// each, in one transaction. It returns how many it went to.
func (s *Service) WriteToRegistrants(ctx context.Context, d *Directing, eventID int64, in MessageInput) (int, error) {
	e, ok := d.Race.Event(eventID)
	if !ok {
		return 0, errs.ErrNotFound
	}
	m, f := in.Validate()
	if len(f) > 0 {
		return 0, errs.Fields(f)
	}
	r := d.Race
	var sent int
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		var err error
		sent, err = s.tellRegistrants(ctx, tx, e.ID, func(reg Registration) letter {
			return letter{Notice{UserID: reg.UserID, RaceID: r.ID, EventID: e.ID, RegistrationID: reg.ID,
				Subject: r.Name + " · " + e.Name + ": " + m.Subject,
				Body: "Hello " + reg.FirstName + ",\n\n" + m.Body + "\n\n(From the directors of " + r.Name + ", to everyone registered for " +
					e.Name + ".)", Link: raceURL(r.Slug), LinkText: "The race"}, reg.Email, ""}
		})
		if err == nil && sent == 0 {
			err = errNobodyToWrite
		}
		return err
	})
	return sent, err
}
