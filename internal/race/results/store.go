package results

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/search"
)

// Store is the results' SQL: race_results and the results columns of
// race_events.
type Store struct {
	db    *db.DB
	index *search.Index // the name search of race_results (migration 00002)
}

// NewStore is the results' store on d.
func NewStore(d *db.DB) *Store { return &Store{db: d, index: resultsIndex(d.Dialect)} }

// resultCols are race_results' columns as written, in resultRow's order.
var resultCols = []string{"event_id", "pos", "place", "bib", "name", "name_key", "gender", "age", "city", "time_ms"}

func resultRow(eventID int64, r Result) []any {
	return []any{eventID, r.Pos, r.Place, r.Bib, r.Name, Key(r.Name), r.Gender, r.Age, r.City, r.TimeMS}
}

const resultSelect = `pos, place, bib, name, gender, age, city, time_ms`

func scanResult(rows *sql.Rows) (Result, error) {
	var r Result
	err := rows.Scan(&r.Pos, &r.Place, &r.Bib, &r.Name, &r.Gender, &r.Age, &r.City, &r.TimeMS)
	return r, err
}

// replace makes rs, numbered by Pos, event's results in tx: the previous
// ones go. Rows are inserted in Pos order (see the FTS table in the SQLite
// migration).
func (s *Store) replace(ctx context.Context, tx *db.Tx, eventID int64, rs []Result) error {
	if _, err := tx.Exec(ctx, `DELETE FROM race_results WHERE event_id = ?`, eventID); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	const per = 2000 // rows a statement: 20,000 parameters, within both databases' limits
	args := make([]any, 0, per*len(resultCols))
	for start := 0; start < len(rs); start += per {
		chunk := rs[start:min(start+per, len(rs))]
		args = args[:0]
		for _, r := range chunk {
			args = append(args, resultRow(eventID, r)...)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO race_results (`+strings.Join(resultCols, ", ")+`) VALUES `+
			db.Values(len(chunk), len(resultCols)), args...); err != nil {
			return fmt.Errorf("results: %w", err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE race_events SET results_count = ? WHERE id = ?`, len(rs), eventID); err != nil {
		return err
	}
	return optimize(ctx, tx)
}

// optimize merges SQLite's name index into one segment after an import: a
// replaced event leaves deleted entries behind in the older segments,
// which made a prefix query ten times slower (5 ms instead of 0.05 ms
// over 150,000 names). PostgreSQL's GIN index needs nothing.
func optimize(ctx context.Context, tx *db.Tx) error {
	if tx.Dialect() != db.SQLite {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO race_results_fts (race_results_fts) VALUES ('optimize')`)
	return err
}

// publish shows event's results to runners from at, or hides them (at
// nil). Publishing needs results: errs.Conflict without.
func (s *Store) publish(ctx context.Context, tx *db.Tx, eventID int64, at *time.Time) error {
	if at == nil {
		_, err := tx.Exec(ctx, `UPDATE race_events SET results_published_at = NULL WHERE id = ?`, eventID)
		return err
	}
	res, err := tx.Exec(ctx, `UPDATE race_events SET results_published_at = ? WHERE id = ? AND results_count > 0`, at.UnixMilli(), eventID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.E(errs.Conflict, "Import the results before publishing them.")
	}
	return nil
}

// List is event's results from position after+1 on, at most limit: a
// seek on (event_id, pos), the same cost on any page.
func (s *Store) List(ctx context.Context, eventID int64, after, limit int) ([]Result, error) {
	return db.All(ctx, s.db, s.db, scanResult, `SELECT `+resultSelect+` FROM race_results
		WHERE event_id = ? AND pos > ? ORDER BY pos LIMIT ?`, eventID, after, limit)
}

// byBib is event's result of bib, if any.
func (s *Store) byBib(ctx context.Context, eventID int64, bib int) ([]Result, error) {
	return db.All(ctx, s.db, s.db, scanResult, `SELECT `+resultSelect+` FROM race_results WHERE event_id = ? AND bib = ?`, eventID, bib)
}

// resultsIndex is the name search of race_results (migration 00002): the
// folded name (name_key) within an event, in list order (pos, which the
// rows' ids follow within an event: an import inserts them in that order).
func resultsIndex(dialect db.Dialect) *search.Index {
	return search.NewIndex(dialect, search.Config{Table: "race_results", ID: "id", Key: "name_key",
		FTS: "race_results_fts", Vector: "name_words", Scope: "event_id", ScopeFTS: "ev", ScopeTag: "e", Order: "pos",
		Columns: "r.pos, r.place, r.bib, r.name, r.gender, r.age, r.city, r.time_ms"})
}

// Search lists event's results whose name has a word starting with each
// of words (folded, as Key makes them), in list order, after the list
// position after.ID (a keyset: the same cost on any page), at most limit.
// rows is the event's number of results (search.Query.Rows: with few,
// PostgreSQL never asks its index).
func (s *Store) Search(ctx context.Context, eventID int64, rows int, words []string, after db.Cursor, limit int) ([]Result, error) {
	return search.Find(ctx, s.db, s.db, s.index, scanResult, search.Query{Words: words, Scope: eventID, Rows: rows, After: after.ID, Limit: limit})
}

// cursor is r's place in a search's keyset: its list position.
func cursor(r Result) db.Cursor { return db.Cursor{ID: int64(r.Pos)} }
