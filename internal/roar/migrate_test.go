package roar

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/tags"
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

// upTo is roar's migrations as they were when file last (say
// "00002_roar_author_repost.sql") was the newest.
func upTo(t *testing.T, last string) db.Migrations {
	t.Helper()
	m := fstest.MapFS{}
	for _, dir := range []string{"sqlite", "postgres"} {
		files, err := fs.ReadDir(Migrations.FS, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Name() > last {
				continue
			}
			b, err := fs.ReadFile(Migrations.FS, dir+"/"+f.Name())
			if err != nil {
				t.Fatal(err)
			}
			m[dir+"/"+f.Name()] = &fstest.MapFile{Data: b}
		}
	}
	return db.Migrations{App: Migrations.App, FS: m}
}

// TestTrendingMigrationCountsRecentRoars: the migration that adds roar's
// trending table counts the hashtags of the roars already there from the
// last 48 hours, in hourly buckets, and not older ones.
func TestTrendingMigrationCountsRecentRoars(t *testing.T) {
	for name, u := range dbtest.URLs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			d := dbtest.Open(t, u, auth.Migrations, upTo(t, "00002_roar_author_repost.sql"))
			ann := dbtest.Users(t, d, "ann")[0]
			now := time.Now()
			err := d.WithTx(ctx, func(tx *db.Tx) error {
				for i, r := range []struct {
					body string
					ago  time.Duration
				}{{"#jazz", time.Minute}, {"#jazz #blues", 2 * time.Minute}, {"#jazz", 3 * time.Hour}, {"#old", 72 * time.Hour}} {
					id := int64(i + 1)
					if _, err := tx.Exec(ctx, "INSERT INTO roars (id, author_id, body, created_at) VALUES (?, ?, ?, ?)",
						id, ann, r.body, now.Add(-r.ago).UnixMilli()); err != nil {
						return err
					}
					for _, tag := range tags.Tags(r.body) {
						if _, err := tx.Exec(ctx, "INSERT INTO roar_tags (tag, roar_id) VALUES (?, ?)", tag, id); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Migrate(ctx, nil, auth.Migrations, Migrations); err != nil {
				t.Fatal(err)
			}
			top, err := trending(time.Now).Top(ctx, d, 10)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tr := range top {
				got = append(got, fmt.Sprintf("%s:%d", tr.Tag, tr.Uses))
			}
			if want := "jazz:3 blues:1"; strings.Join(got, " ") != want {
				t.Errorf("trending after the migration = %q; want %q", strings.Join(got, " "), want)
			}
		})
	}
}
