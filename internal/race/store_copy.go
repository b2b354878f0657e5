package race

import (
	"context"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// copyRace stores the copy of src for load rehearsal id (package
// rehearsals): published, never listed (rehearsal_of), its events open
// from opens to closes with the same places, prices and extras, nobody
// registered, no codes, no waiting list or lottery; owned and directed by
// director. Events that have started are left out: a rehearsal is of an
// opening to come. It returns the copy with its events, and their ids by
// the originals'.
func (s *Store) copyRace(ctx context.Context, tx *db.Tx, src *Race, id, director int64, opens, closes, now time.Time) (*Race, map[int64]int64, error) {
	c := *src
	slug := src.Slug
	if len(slug) > 48 {
		slug = slug[:48]
	}
	c.Slug = slug + "-rehearsal-" + strconv.FormatInt(id, 10)
	// Not the logo: the copy's own basics page could replace or remove the
	// file, which is the race's.
	c.OwnerID, c.Version, c.PublishedAt, c.EarlyCodes, c.RehearsalOf, c.Logo = director, 1, &now, false, src.ID, ""
	if err := db.Scan(tx.QueryRow(ctx, `INSERT INTO race_races (slug, owner_id, name, location, race_date, tz, description, info, waiver,
		logo, currency, published_at, teams, fundraiser, shirts, rehearsal_of, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		c.Slug, director, c.Name, c.Location, c.Date, c.TZ, c.Description, c.Info, c.Waiver, c.Logo, c.Currency, now.UnixMilli(),
		c.Teams, c.Fundraiser, c.Shirts, src.ID, now.UnixMilli(), now.UnixMilli()), &c.ID); err != nil {
		return nil, nil, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO race_directors (race_id, user_id, created_at) VALUES (?, ?, ?)`, c.ID, director, now.UnixMilli()); err != nil {
		return nil, nil, err
	}
	c.Events = nil
	copied := map[int64]int64{}
	for _, e := range src.Events {
		if !e.StartsAt.After(now) {
			continue
		}
		from := e.ID
		e.RaceID, e.OpensAt, e.ClosesAt = c.ID, opens, closes
		e.Taken, e.Confirmed, e.Waiting, e.Lottery, e.DrawAt, e.DrawnAt = 0, 0, 0, false, nil, nil
		e.ResultsCount, e.ResultsPublishedAt = 0, nil
		if err := s.AddEvent(ctx, tx, &e, now); err != nil {
			return nil, nil, err
		}
		c.Events = append(c.Events, e)
		copied[from] = e.ID
	}
	c.Items = nil
	for _, it := range src.Items {
		if _, err := tx.Exec(ctx, `INSERT INTO race_items (race_id, name, price, stock, created_at) VALUES (?, ?, ?, ?, ?)`,
			c.ID, it.Name, it.Price, it.Stock, now.UnixMilli()); err != nil {
			return nil, nil, err
		}
	}
	return &c, copied, nil
}

// dropCopy deletes rehearsal copy id in tx, with its rows.
func (s *Store) dropCopy(ctx context.Context, tx *db.Tx, id int64) error {
	_, err := tx.Exec(ctx, `DELETE FROM race_races WHERE id = ? AND rehearsal_of IS NOT NULL`, id)
	s.allHoldsChanged(tx) // its holds go with it
	return err
}
