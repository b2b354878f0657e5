// Package dbtest opens fresh databases for tests: a temporary SQLite file
// always, and a fresh PostgreSQL schema when TUTTI_TEST_POSTGRES holds a URL.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net/url"
	"os"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
)

// Env is the variable that turns on the PostgreSQL runs.
const Env = "TUTTI_TEST_POSTGRES"

// URLs returns the database URLs tests should run on, by name: "sqlite" always
// (an empty URL: a temp data dir), "postgres" with a fresh schema when
// TUTTI_TEST_POSTGRES is set. The schema is dropped when the test ends.
func URLs(t testing.TB) map[string]string {
	t.Helper()
	urls := map[string]string{"sqlite": ""}
	if base := os.Getenv(Env); base != "" {
		urls["postgres"] = FreshSchema(t, base)
	}
	return urls
}

// FreshSchema creates a new schema on the PostgreSQL server at base and returns
// a URL whose connections use it; the schema is dropped at cleanup.
func FreshSchema(t testing.TB, base string) string {
	t.Helper()
	ctx := context.Background()
	admin, err := db.Open(ctx, base, "")
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	if _, err := admin.SQL().ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		admin.SQL().ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Each runs fn as a subtest on every database of URLs, each opened fresh and
// migrated with sets.
func Each(t *testing.T, fn func(t *testing.T, d *db.DB), sets ...db.Migrations) {
	t.Helper()
	for name, u := range URLs(t) {
		t.Run(name, func(t *testing.T) {
			fn(t, Open(t, u, sets...))
		})
	}
}

// Open opens url (empty: SQLite in a temp dir), migrates it and closes it at cleanup.
func Open(t testing.TB, u string, sets ...db.Migrations) *db.DB {
	t.Helper()
	d, err := db.Open(context.Background(), u, t.TempDir())
	if err != nil {
		t.Fatalf("open %q: %v", u, err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Migrate(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), sets...); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return d
}
