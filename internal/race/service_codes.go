package race

import (
	"context"
	"errors"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// Codes (codes.go): the directors' list, and a runner's code on a hold.

// Codes are the directed race's codes.
func (s *Service) Codes(ctx context.Context, d *Directing) ([]Code, error) {
	return s.store.Codes(ctx, d.Race.ID)
}

// AddCode adds a code from its form. The race's version rises: its page
// offers early access once it has an early-access code.
func (s *Service) AddCode(ctx context.Context, d *Directing, in CodeInput) error {
	c, f := in.Validate()
	if len(f) > 0 {
		return errs.Fields(f)
	}
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.AddCode(ctx, tx, d.Race.ID, c, s.now()) })
}

// DeleteCode deletes a code nobody has used.
func (s *Service) DeleteCode(ctx context.Context, d *Directing, id int64) error {
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.DeleteCode(ctx, tx, d.Race.ID, id) })
}

// ApplyCode puts a discount code on en's hold (the payment page), its use
// claimed at once; "" takes the hold's code off. Field errors (code): no
// such code, no discount in it, used up.
func (s *Service) ApplyCode(ctx context.Context, en *Entry, code string) error {
	var c *Code
	if code != "" {
		name := CleanCode(code)
		if name == "" {
			return errs.Fields(map[string]string{"code": "Type the code as you were given it (4 to 20 letters, digits or dashes)."})
		}
		found, err := s.store.CodeByName(ctx, s.db, en.Race.ID, name)
		switch {
		case errors.Is(err, errs.ErrNotFound):
			return errs.Fields(map[string]string{"code": "There is no such code for this race."})
		case err != nil:
			return err
		case found.Percent == 0:
			return errs.Fields(map[string]string{"code": "This code gives early access; it takes nothing off the price."})
		}
		c = &found
	}
	// A place held early stands on its early-access code's use: until the
	// opening the code stays on the hold (taking it off would give the
	// use back while the place stays, and let the next runner in early).
	if h := en.Hold; h.CodeID != 0 && s.now().Before(en.Event.OpensAt) {
		if had, err := s.store.CodeByName(ctx, s.db, en.Race.ID, h.Code); err == nil && had.Early {
			return errs.Fields(map[string]string{"code": "Your place was held early with code " + h.Code + ": it stays on until registration opens."})
		}
	}
	return s.onOpen(ctx, en, stepWaiver+1, true, func(ctx context.Context, tx *db.Tx) error {
		return s.store.SetCode(ctx, tx, en.Hold.ID, en.User.ID, c)
	})
}
