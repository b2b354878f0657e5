package race

import (
	"context"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// The extras (extras.go): the directors' third step, and the runners'
// team, donation and store pages.

// SetExtras stores the extras form: teams on or off, the fundraiser.
func (s *Service) SetExtras(ctx context.Context, d *Directing, in ExtrasInput) error {
	in, f := in.Validate()
	if len(f) > 0 {
		return errs.Fields(f)
	}
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.SetExtras(ctx, tx, d.Race.ID, in) })
}

// AddItem adds a store item from its form.
func (s *Service) AddItem(ctx context.Context, d *Directing, in ItemInput) error {
	it, f := in.Validate(d.Race.Currency)
	if len(f) > 0 {
		return errs.Fields(f)
	}
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.AddItem(ctx, tx, d.Race.ID, it, s.now()) })
}

// UpdateItem changes store item id from its form; its stock may not fall
// below what is sold and held.
func (s *Service) UpdateItem(ctx context.Context, d *Directing, id int64, in ItemInput) error {
	if _, ok := d.Race.Item(id); !ok {
		return errs.ErrNotFound
	}
	it, f := in.Validate(d.Race.Currency)
	if len(f) > 0 {
		return errs.Fields(f)
	}
	it.ID = id
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.UpdateItem(ctx, tx, d.Race.ID, it) })
}

// DeleteItem deletes a store item nobody has bought.
func (s *Service) DeleteItem(ctx context.Context, d *Directing, id int64) error {
	if _, ok := d.Race.Item(id); !ok {
		return errs.ErrNotFound
	}
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.DeleteItem(ctx, tx, d.Race.ID, id) })
}

// Teams are race r's teams (up to MaxTeams), for its team page.
func (s *Service) Teams(ctx context.Context, r *Race) ([]Team, error) {
	return s.store.Teams(ctx, r.ID, MaxTeams)
}

// SaveTeam stores the team page: name joins the race's team of that name,
// created if it is new; "" runs for no team.
func (s *Service) SaveTeam(ctx context.Context, en *Entry, name string) error {
	if !en.Race.Teams {
		return errs.ErrNotFound
	}
	name, msg := CleanTeam(name)
	if msg != "" {
		return errs.Fields(map[string]string{"team": msg})
	}
	return s.onOpen(ctx, en, stepTeam, true, func(ctx context.Context, tx *db.Tx) error {
		var team int64
		if name != "" {
			var err error
			if team, err = s.store.JoinTeam(ctx, tx, en.Race.ID, name, s.now()); err != nil {
				return err
			}
		}
		if err := s.store.SaveTeam(ctx, tx, en.Hold.ID, en.User.ID, team, stepTeam); err != nil {
			return err
		}
		if was := en.Hold.TeamID; was != 0 && was != team {
			return s.store.LeaveTeam(ctx, tx, was)
		}
		return nil
	})
}

// SaveDonation stores the donation page (choice and other as ParseDonation
// reads them).
func (s *Service) SaveDonation(ctx context.Context, en *Entry, choice, other string) error {
	if en.Race.Fundraiser == "" {
		return errs.ErrNotFound
	}
	amount, msg := ParseDonation(choice, other, en.Race.Currency)
	if msg != "" {
		return errs.Fields(map[string]string{"other": msg})
	}
	return s.onOpen(ctx, en, stepDonation, false, func(ctx context.Context, tx *db.Tx) error {
		return s.store.SaveDonation(ctx, tx, en.Hold.ID, en.User.ID, amount, stepDonation)
	})
}

// SaveStore stores the store page: the units of each item, claimed from
// stock at once (a runner is never told at the end that a shirt sold
// out), or a message per item that has not that many left.
func (s *Service) SaveStore(ctx context.Context, en *Entry, get func(string) string) error {
	r := en.Race
	if len(r.Items) == 0 {
		return errs.ErrNotFound
	}
	want, f := ParseQuantities(r.Items, get)
	if len(f) > 0 {
		return errs.Fields(f)
	}
	price := make(map[int64]int64, len(r.Items))
	for _, it := range r.Items {
		price[it.ID] = it.Price
	}
	return s.onOpen(ctx, en, stepStore, true, func(ctx context.Context, tx *db.Tx) error {
		return s.store.SaveLines(ctx, tx, en.Hold.ID, en.User.ID, r.ID, want, price, stepStore)
	})
}

// Lines are the store lines of en's hold (none when its race has no
// store).
func (s *Service) Lines(ctx context.Context, en *Entry) ([]Line, error) {
	if len(en.Race.Items) == 0 {
		return nil, nil
	}
	return s.store.Lines(ctx, en.Hold.ID)
}
