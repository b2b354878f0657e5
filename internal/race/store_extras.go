package race

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// The extras' SQL (extras.go): the race's teams switch and fundraiser,
// store items and their stock, teams, and the extras a hold carries.

func (s *Store) items(ctx context.Context, q db.Querier, raceID int64) ([]Item, error) {
	rows, err := q.Query(ctx, `SELECT id, name, price, stock, taken FROM race_items WHERE race_id = ? ORDER BY id`, raceID)
	if err != nil {
		return nil, fmt.Errorf("race: items: %w", err)
	}
	defer rows.Close()
	var out []Item
	for rows.Next() {
		var it Item
		if err := rows.Scan(&it.ID, &it.Name, &it.Price, &it.Stock, &it.Taken); err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// SetExtras stores the extras form.
func (s *Store) SetExtras(ctx context.Context, tx *db.Tx, raceID int64, in ExtrasInput) error {
	_, err := tx.Exec(ctx, `UPDATE race_races SET teams = ?, fundraiser = ?, shirts = ? WHERE id = ?`, in.Teams, in.Fundraiser, in.Shirts, raceID)
	return err
}

// AddItem stores a new store item of race.
func (s *Store) AddItem(ctx context.Context, tx *db.Tx, raceID int64, it Item, now time.Time) error {
	var n int
	if err := db.Scan(tx.QueryRow(ctx, `SELECT count(*) FROM race_items WHERE race_id = ?`, raceID), &n); err != nil {
		return err
	}
	if n >= MaxItems {
		return errs.E(errs.Conflict, "A race's store has at most %d items.", MaxItems)
	}
	_, err := tx.Exec(ctx, `INSERT INTO race_items (race_id, name, price, stock, created_at) VALUES (?, ?, ?, ?, ?)`,
		raceID, it.Name, it.Price, it.Stock, now.UnixMilli())
	return err
}

// UpdateItem stores an item's form. The stock may not fall below the units
// sold and held: checked in the statement, as an event's cap is.
func (s *Store) UpdateItem(ctx context.Context, tx *db.Tx, raceID int64, it Item) error {
	res, err := tx.Exec(ctx, `UPDATE race_items SET name = ?, price = ?, stock = ? WHERE id = ? AND race_id = ? AND taken <= ?`,
		it.Name, it.Price, it.Stock, it.ID, raceID, it.Stock)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var taken int
		if err := db.Scan(tx.QueryRow(ctx, `SELECT taken FROM race_items WHERE id = ? AND race_id = ?`, it.ID, raceID), &taken); err != nil {
			return err
		}
		return &errs.Error{Kind: errs.Invalid, Message: "Check the stock.",
			Fields: map[string]string{"stock": fmt.Sprintf("%d are sold or held already: the stock cannot be lower.", taken)}}
	}
	return nil
}

// DeleteItem deletes an item nobody has bought or holds.
func (s *Store) DeleteItem(ctx context.Context, tx *db.Tx, raceID, id int64) error {
	res, err := tx.Exec(ctx, `DELETE FROM race_items WHERE id = ? AND race_id = ? AND taken = 0
		AND NOT EXISTS (SELECT 1 FROM race_hold_items WHERE item_id = ?)`, id, raceID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.E(errs.Conflict, "Runners have bought this item: set its stock to what is sold to stop selling it.")
	}
	return nil
}

// Teams are race's teams by name, with their confirmed runners, up to
// limit.
func (s *Store) Teams(ctx context.Context, raceID int64, limit int) ([]Team, error) {
	rows, err := s.db.Query(ctx, `SELECT t.id, t.name,
		(SELECT count(*) FROM race_registrations r WHERE r.team_id = t.id AND r.status = 'confirmed')
		FROM race_teams t WHERE t.race_id = ? ORDER BY t.name_key LIMIT ?`, raceID, limit)
	if err != nil {
		return nil, fmt.Errorf("race: teams: %w", err)
	}
	defer rows.Close()
	var out []Team
	for rows.Next() {
		var t Team
		if err := rows.Scan(&t.ID, &t.Name, &t.Runners); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// TeamNames are race's teams' names by id (the registrant list's export).
func (s *Store) TeamNames(ctx context.Context, raceID int64) (map[int64]string, error) {
	rows, err := s.db.Query(ctx, `SELECT id, name FROM race_teams WHERE race_id = ?`, raceID)
	if err != nil {
		return nil, fmt.Errorf("race: team names: %w", err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		out[id] = name
	}
	return out, rows.Err()
}

// maxRaceTeams bounds the teams of a race, which runners create by typing.
const maxRaceTeams = 5_000

// errTooManyTeams refuses a new team when a race has maxRaceTeams.
var errTooManyTeams = errs.Fields(map[string]string{"team": "This race has as many teams as it takes: join one of them."})

// JoinTeam is the id of race's team called name, created if there is none
// yet (teams are one by TeamKey: "Zoë's Runners" is "zoes runners").
func (s *Store) JoinTeam(ctx context.Context, tx *db.Tx, raceID int64, name string, now time.Time) (int64, error) {
	key := TeamKey(name)
	var id int64
	err := db.Scan(tx.QueryRow(ctx, `SELECT id FROM race_teams WHERE race_id = ? AND name_key = ?`, raceID, key), &id)
	if err == nil {
		return id, nil
	}
	var n int
	if err := db.Scan(tx.QueryRow(ctx, `SELECT count(*) FROM race_teams WHERE race_id = ?`, raceID), &n); err != nil {
		return 0, err
	}
	if n >= maxRaceTeams {
		return 0, errTooManyTeams
	}
	// Another runner may create it meanwhile: theirs is ours.
	if _, err := tx.Exec(ctx, `INSERT INTO race_teams (race_id, name, name_key, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (race_id, name_key) DO NOTHING`, raceID, name, key, now.UnixMilli()); err != nil {
		return 0, err
	}
	err = db.Scan(tx.QueryRow(ctx, `SELECT id FROM race_teams WHERE race_id = ? AND name_key = ?`, raceID, key), &id)
	return id, err
}

// LeaveTeam removes team if no hold and no registration is in it any more
// (its last runner chose another, or none): a runner typing name after
// name makes one team at a time, not a race's worth.
func (s *Store) LeaveTeam(ctx context.Context, tx *db.Tx, team int64) error {
	_, err := tx.Exec(ctx, `DELETE FROM race_teams WHERE id = ?
		AND NOT EXISTS (SELECT 1 FROM race_holds WHERE team_id = ?)
		AND NOT EXISTS (SELECT 1 FROM race_registrations WHERE team_id = ?)`, team, team, team)
	return err
}

// SaveTeam stores the team page on an open hold of user's (team 0: none).
func (s *Store) SaveTeam(ctx context.Context, tx *db.Tx, id string, userID, team int64, step int) error {
	var t any
	if team > 0 {
		t = team
	}
	return s.onOpen(ctx, tx, id, userID, `team_id = ?, step = CASE WHEN step < ? THEN ? ELSE step END`, t, step, step)
}

// SaveDonation stores the donation page on an open hold of user's.
func (s *Store) SaveDonation(ctx context.Context, tx *db.Tx, id string, userID, amount int64, step int) error {
	return s.onOpen(ctx, tx, id, userID, `donation = ?, step = CASE WHEN step < ? THEN ? ELSE step END`, amount, step, step)
}

// SaveLines stores the store page on an open hold of user's: its lines
// become want (units by item of race), each added unit claimed from stock
// by one conditional UPDATE, each removed one given back. If an item has
// not the units, nothing is stored and the error says what is left, by
// field (qty-<id>).
func (s *Store) SaveLines(ctx context.Context, tx *db.Tx, id string, userID, raceID int64, want map[int64]int, price map[int64]int64, step int) error {
	// The hold first: it must be open and the runner's, and on PostgreSQL
	// its row lock keeps a second tab's save of it waiting.
	if err := s.onOpen(ctx, tx, id, userID, `step = CASE WHEN step < ? THEN ? ELSE step END`, step, step); err != nil {
		return err
	}
	have, err := linesOf(ctx, tx, id)
	if err != nil {
		return err
	}
	ids := make([]int64, 0, len(want)+len(have))
	for it := range want {
		ids = append(ids, it)
	}
	for _, l := range have {
		if _, ok := want[l.ItemID]; !ok {
			ids = append(ids, l.ItemID)
		}
	}
	slices.Sort(ids) // one order for every hold: no deadlock between two
	short := map[string]string{}
	for _, it := range ids {
		var had int
		for _, l := range have {
			if l.ItemID == it {
				had = l.Qty
			}
		}
		d := want[it] - had
		switch {
		case d > 0:
			err := itemUnits.Claim(ctx, tx, d, "id = ? AND race_id = ?", it, raceID)
			if err != nil && !errors.Is(err, checkout.ErrNoStock) {
				return err
			}
			if err != nil {
				left, _, err := itemUnits.Left(ctx, tx, "id = ? AND race_id = ?", it, raceID)
				if err != nil {
					return err
				}
				short[fmt.Sprintf("qty-%d", it)] = leftText(had + left)
				continue
			}
		case d < 0:
			if err := itemUnits.GiveBack(ctx, tx, -d, "id = ? AND race_id = ?", it, raceID); err != nil {
				return err
			}
		}
		if want[it] == 0 {
			_, err = tx.Exec(ctx, `DELETE FROM race_hold_items WHERE hold_id = ? AND item_id = ?`, id, it)
		} else {
			_, err = tx.Exec(ctx, `INSERT INTO race_hold_items (hold_id, item_id, qty, price) VALUES (?, ?, ?, ?)
				ON CONFLICT (hold_id, item_id) DO UPDATE SET qty = excluded.qty, price = excluded.price`, id, it, want[it], price[it])
		}
		if err != nil {
			return err
		}
	}
	if len(short) > 0 {
		return &errs.Error{Kind: errs.Invalid, Message: "Some items have not that many left.", Fields: short}
	}
	return nil
}

func leftText(n int) string {
	switch n {
	case 0:
		return "Sold out, sorry."
	case 1:
		return "Only 1 left."
	}
	return fmt.Sprintf("Only %d left.", n)
}

// Lines are hold id's store lines, by item.
func (s *Store) Lines(ctx context.Context, id string) ([]Line, error) { return linesOf(ctx, s.db, id) }

func linesOf(ctx context.Context, q db.Querier, id string) ([]Line, error) {
	rows, err := q.Query(ctx, `SELECT hi.item_id, i.name, hi.qty, hi.price FROM race_hold_items hi
		JOIN race_items i ON i.id = hi.item_id WHERE hi.hold_id = ? ORDER BY hi.item_id`, id)
	if err != nil {
		return nil, fmt.Errorf("race: lines: %w", err)
	}
	defer rows.Close()
	var out []Line
	for rows.Next() {
		var l Line
		if err := rows.Scan(&l.ItemID, &l.Name, &l.Qty, &l.Price); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// EventLines are the store lines of event's registrations, by hold id, in
// one query (the registrant list and its export).
func (s *Store) EventLines(ctx context.Context, eventID int64) (map[string][]Line, error) {
	rows, err := s.db.Query(ctx, `SELECT hi.hold_id, hi.item_id, i.name, hi.qty, hi.price FROM race_registrations r
		JOIN race_hold_items hi ON hi.hold_id = r.hold_id JOIN race_items i ON i.id = hi.item_id
		WHERE r.event_id = ? ORDER BY hi.hold_id, hi.item_id`, eventID)
	if err != nil {
		return nil, fmt.Errorf("race: event lines: %w", err)
	}
	defer rows.Close()
	out := map[string][]Line{}
	for rows.Next() {
		var h string
		var l Line
		if err := rows.Scan(&h, &l.ItemID, &l.Name, &l.Qty, &l.Price); err != nil {
			return nil, err
		}
		out[h] = append(out[h], l)
	}
	return out, rows.Err()
}
