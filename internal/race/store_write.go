package race

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
)

// WritePaid is the registration writer's transaction: the holds charged
// and handed off to this instance's writer move from paying to paid with
// their payments (as MarkPaid moves one), and it returns those it moved
// (paid); then up to limit paid holds, oldest first, become registrations
// with the next bibs of their races; also runs in the same transaction
// (the confirmation mails' outbox rows). It returns the registrations
// written.
//
// Exactly once: the holds move from paid to done first, by a statement that
// names the status, so a hold another writer (another instance) took
// meanwhile is not returned here; and hold_id is unique in
// race_registrations. On PostgreSQL, SKIP LOCKED lets concurrent writers
// take different holds instead of queueing behind each other.
func (s *Store) WritePaid(ctx context.Context, limit int, now time.Time, charged []checkout.HandedOff,
	also func(tx *db.Tx, regs []Registration) error) (paid []string, _ []Registration, _ error) {
	var out []Registration
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		out = out[:0]
		var err error
		if paid, err = s.markPaid(ctx, tx, charged, now); err != nil {
			return err
		}
		lock := ""
		if tx.Dialect() == db.Postgres {
			lock = " FOR UPDATE SKIP LOCKED"
		}
		rows, err := tx.Query(ctx, `UPDATE race_holds SET `+toDone.Set("status")+`
			WHERE id IN (SELECT id FROM race_holds WHERE `+toDone.Where("status")+` ORDER BY paid_at LIMIT ?`+lock+`) AND `+toDone.Where("status")+`
			RETURNING id, race_id, event_id, user_id, first_name, last_name, email, birth_date, gender, city, emergency, amount, payment_id, paid_at,
				team_id, donation, shirt`,
			limit)
		if err != nil {
			return err
		}
		var paidAt []int64
		var teams []sql.NullInt64
		for rows.Next() {
			var r Registration
			var at, team sql.NullInt64
			if err := rows.Scan(&r.HoldID, &r.RaceID, &r.EventID, &r.UserID, &r.FirstName, &r.LastName, &r.Email, &r.BirthDate,
				&r.Gender, &r.City, &r.Emergency, &r.Amount, &r.PaymentID, &at, &team, &r.Donation, &r.Shirt); err != nil {
				rows.Close()
				return err
			}
			r.Status, r.CreatedAt = "confirmed", now
			out = append(out, r)
			paidAt = append(paidAt, at.Int64)
			teams = append(teams, team)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(out) == 0 {
			return err
		}
		done := make([]string, len(out))
		for i, r := range out {
			done[i] = r.HoldID
		}
		s.holdsChanged(tx, done...)
		// Bibs in the order runners paid, per race.
		idx := make([]int, len(out))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return paidAt[idx[a]] < paidAt[idx[b]] })
		perRace := map[int64][]int{}
		var races []int64
		for _, i := range idx {
			if _, ok := perRace[out[i].RaceID]; !ok {
				races = append(races, out[i].RaceID)
			}
			perRace[out[i].RaceID] = append(perRace[out[i].RaceID], i)
		}
		for _, race := range races {
			ix := perRace[race]
			var next int
			if err := db.Scan(tx.QueryRow(ctx, `UPDATE race_races SET next_bib = next_bib + ? WHERE id = ? RETURNING next_bib`,
				len(ix), race), &next); err != nil {
				return err
			}
			for k, i := range ix {
				out[i].Bib = next - len(ix) + k
			}
		}
		const cols = 20
		args := make([]any, 0, len(out)*cols)
		perEvent := map[int64]int{}
		for i, r := range out {
			args = append(args, r.HoldID, r.RaceID, r.EventID, r.UserID, r.Bib, r.FirstName, r.LastName,
				NameKey(r.FirstName+" "+r.LastName), r.Email, r.BirthDate, r.Gender, r.City, r.Emergency, r.Amount, r.PaymentID,
				"confirmed", now.UnixMilli(), teams[i], r.Donation, r.Shirt)
			perEvent[r.EventID]++
		}
		if _, err := tx.Exec(ctx, `INSERT INTO race_registrations (hold_id, race_id, event_id, user_id, bib, first_name, last_name,
			name_key, email, birth_date, gender, city, emergency, amount, payment_id, status, created_at, team_id, donation, shirt)
			VALUES `+db.Values(len(out), cols), args...); err != nil {
			return fmt.Errorf("race: write registrations: %w", err)
		}
		for ev, k := range perEvent {
			if _, err := tx.Exec(ctx, `UPDATE race_events SET confirmed = confirmed + ? WHERE id = ?`, k, ev); err != nil {
				return err
			}
		}
		if also != nil {
			return also(tx, out)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return paid, out, nil
}

// markPaid moves the holds charged from paying to paid with their
// payments, in one statement, and returns those it moved; a hold not
// paying (settled meanwhile, or paid by another send) is left as it is.
func (s *Store) markPaid(ctx context.Context, tx *db.Tx, charged []checkout.HandedOff, now time.Time) ([]string, error) {
	if len(charged) == 0 {
		return nil, nil
	}
	args := make([]any, 0, 1+2*len(charged))
	args = append(args, now.UnixMilli())
	for _, p := range charged {
		args = append(args, p.ID, p.Payment)
	}
	rows, err := tx.Query(ctx, `UPDATE race_holds SET `+toPaid.Set("status")+`, payment_id = v.column2, paid_at = ?
		FROM (VALUES `+db.Values(len(charged), 2)+`) AS v WHERE race_holds.id = v.column1 AND `+toPaid.Where("status")+`
		RETURNING race_holds.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("race: mark paid: %w", err)
	}
	defer rows.Close()
	var paid []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		paid = append(paid, id)
	}
	s.holdsChanged(tx, paid...)
	return paid, rows.Err()
}
