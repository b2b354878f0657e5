package race

import (
	"context"
	"fmt"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
)

// newBigRace is a race on d with n runners (a benchmark's:
// tell_bench_test.go): the runners are users owner .. owner+n-1.
func newBigRace(tb testing.TB, d *db.DB, n int) (owner, raceID int64) {
	ctx := context.Background()
	users := make([][]any, n)
	for i := range users {
		e := fmt.Sprintf("r%d@example.com", i)
		users[i] = []any{fmt.Sprint("r", i), fmt.Sprint("r", i), e, e, "x", 0, 0}
	}
	if err := d.CopyFrom(ctx, "users", []string{"username", "username_key", "email", "email_key", "password_hash", "created_at", "updated_at"}, users); err != nil {
		tb.Fatal(err)
	}
	err := d.WithTx(ctx, func(tx *db.Tx) error {
		if err := db.Scan(tx.QueryRow(ctx, `SELECT min(id) FROM users`), &owner); err != nil {
			return err
		}
		return db.Scan(tx.QueryRow(ctx, `INSERT INTO race_races (slug, owner_id, name, race_date, tz, created_at, updated_at)
			VALUES ('bench', ?, 'Bench', '2027-01-01', 'UTC', 0, 0) RETURNING id`, owner), &raceID)
	})
	if err != nil {
		tb.Fatal(err)
	}
	return owner, raceID
}
