package media_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/media"
)

// TestDeriveGivesUp: a derivation that refuses the file (errs.Invalid)
// fails the upload at once; one that keeps failing otherwise fails it on
// the job's last attempt. Either way the app is told once (OnFailed, with
// why), the upload is not left pending, and no job is left to run.
func TestDeriveGivesUp(t *testing.T) {
	for _, c := range []struct {
		name     string
		err      error
		attempts int // how many times Make runs
	}{
		{"refused", errs.E(errs.Invalid, "We could not read this."), 1},
		{"out of attempts", errors.New("the decoder fell over"), 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, d *db.DB) {
				ctx := context.Background()
				q := jobs.New(d, jobs.Options{MaxAttempts: 3, Backoff: func(int) time.Duration { return 0 }})
				st, err := files.NewLocal(t.TempDir(), "/files/")
				if err != nil {
					t.Fatal(err)
				}
				svc, err := media.New(media.Deps{DB: d, Files: st, Jobs: q, TempDir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				var mu sync.Mutex
				var made int
				var failed []*media.File
				svc.Register(media.Kind{Name: "blob", MaxBytes: 1 << 10, Types: []string{"text/plain; charset=utf-8"},
					Derive: []media.Derivation{{Name: "x", Make: func(context.Context, media.Source) (media.Output, error) {
						mu.Lock()
						defer mu.Unlock()
						made++
						return media.Output{}, c.err
					}}},
					OnReady: func(context.Context, *media.File) error { t.Error("OnReady of a file that failed"); return nil },
					OnFailed: func(_ context.Context, f *media.File) error {
						mu.Lock()
						defer mu.Unlock()
						failed = append(failed, f)
						return nil
					}})
				up, err := svc.Read(ctx, bytes.NewReader([]byte("hello")), "file", "blob")
				if err != nil {
					t.Fatal(err)
				}
				defer up.Close()
				f, err := svc.Save(ctx, up, 7, 0)
				if err != nil {
					t.Fatal(err)
				}
				wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				if err := svc.Wait(wctx); err != nil {
					t.Fatalf("waiting for the job: %v", err)
				}
				got, err := svc.Get(ctx, f.ID)
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				defer mu.Unlock()
				if got.Status != media.Failed || made != c.attempts || len(failed) != 1 || failed[0].ID != f.ID || failed[0].Meta["error"] == "" {
					t.Fatalf("status %s, made %d times, told %d times (%v); want failed, %d, once with why",
						got.Status, made, len(failed), failed, c.attempts)
				}
				var left int
				if err := db.Scan(d.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE state IN ('ready', 'running')`), &left); err != nil || left != 0 {
					t.Errorf("%d jobs left to run (%v); want none", left, err)
				}
			}, jobs.Migrations, media.Migrations)
		})
	}
}
