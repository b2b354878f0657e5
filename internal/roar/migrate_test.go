package roar

import (
	"context"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// hasIndex reports whether the database has an index of that name.
func hasIndex(t *testing.T, d *db.DB, name string) bool {
	t.Helper()
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?`
	if d.Dialect == db.Postgres {
		q = `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ?`
	}
	var n int
	if err := db.Scan(d.QueryRow(context.Background(), q, name), &n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// onlyFirst is roar's migrations as they were when only 00001 had landed;
// extra is appended to 00001's Up section (the index once edited into it).
func onlyFirst(t *testing.T, extra string) db.Migrations {
	t.Helper()
	m := fstest.MapFS{}
	for _, dir := range []string{"sqlite", "postgres"} {
		b, err := fs.ReadFile(Migrations.FS, dir+"/00001_roar.sql")
		if err != nil {
			t.Fatal(err)
		}
		body := string(b)
		if extra != "" {
			body = strings.Replace(body, "-- +goose Down", extra+"\n\n-- +goose Down", 1)
		}
		m[dir+"/00001_roar.sql"] = &fstest.MapFile{Data: []byte(body)}
	}
	return db.Migrations{App: Migrations.App, FS: m}
}

// TestAuthorRepostIndexReachesOldDatabases: the author/repost index was
// once edited into 00001, so a database already at version 1 never got it.
// It lives in 00002 now: a database at version 1 gets it, and one created
// from the edited 00001 (that has it already) migrates without error.
func TestAuthorRepostIndexReachesOldDatabases(t *testing.T) {
	const index = "roars_author_repost"
	edited := "CREATE INDEX " + index + " ON roars (author_id, repost_of) WHERE repost_of IS NOT NULL;"
	for name, u := range dbtest.URLs(t) {
		for _, tc := range []struct {
			name, extra string
		}{{"at version 1", ""}, {"from the edited 00001", edited}} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				if name == "postgres" {
					u = dbtest.FreshSchema(t, os.Getenv(dbtest.Env))
				}
				d := dbtest.Open(t, u, auth.Migrations, onlyFirst(t, tc.extra))
				if got, want := hasIndex(t, d, index), tc.extra != ""; got != want {
					t.Fatalf("before: index %s present = %v; want %v", index, got, want)
				}
				if err := d.Migrate(context.Background(), nil, auth.Migrations, Migrations); err != nil {
					t.Fatalf("migrate to the current version: %v", err)
				}
				if !hasIndex(t, d, index) {
					t.Fatalf("index %s missing after migrating", index)
				}
			})
		}
	}
}
