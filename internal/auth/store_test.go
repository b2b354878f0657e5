package auth

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
)

func newTestService(t *testing.T, d *db.DB) *Service {
	t.Helper()
	s, err := New(Deps{DB: d, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStoreCreateUnique(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newTestService(t, d)
		hash, err := HashPassword("password1")
		if err != nil {
			t.Fatal(err)
		}
		u, err := s.CreateWithHash(ctx, Signup{Username: "Alice", Email: "Alice@Example.com"}, hash)
		if err != nil {
			t.Fatal(err)
		}
		if u.ID == 0 || u.Username != "Alice" {
			t.Fatalf("created %+v; want an id and the username as typed", u)
		}
		cases := []struct {
			name   string
			in     Signup
			fields []string
		}{
			{"username in other case", Signup{Username: "aLiCe", Email: "other@example.com"}, []string{"username"}},
			{"e-mail in other case", Signup{Username: "bob", Email: "alice@EXAMPLE.com"}, []string{"email"}},
			{"both", Signup{Username: "ALICE", Email: "alice@example.com"}, []string{"username", "email"}},
			{"invalid", Signup{Username: "no spaces", Email: "nope"}, []string{"username", "email"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, err := s.CreateWithHash(ctx, c.in, hash)
				e := errs.As(err)
				if e.Kind != errs.Invalid || len(e.Fields) != len(c.fields) {
					t.Fatalf("got %v (fields %v); want invalid %v", err, e.Fields, c.fields)
				}
				for _, f := range c.fields {
					if e.Fields[f] == "" {
						t.Errorf("no message for %s: %v", f, e.Fields)
					}
				}
			})
		}
		var n int
		if err := d.QueryRow(ctx, "SELECT COUNT(*) FROM users").Scan(&n); err != nil || n != 1 {
			t.Errorf("users: %d (%v); want 1", n, err)
		}
		got, err := s.ByUsername(ctx, "ALICE")
		if err != nil || got.ID != u.ID {
			t.Fatalf("ByUsername(ALICE) = %+v, %v; want user %d", got, err, u.ID)
		}
		if got.Email != "Alice@Example.com" || !got.CreatedAt.Equal(u.CreatedAt) {
			t.Errorf("loaded %+v; want the e-mail as typed and the creation time", got)
		}
		if _, err := s.ByUsername(ctx, "nobody"); errs.KindOf(err) != errs.NotFound {
			t.Errorf("ByUsername(nobody): %v; want not found", err)
		}
		if _, err := s.User(ctx, 9999); errs.KindOf(err) != errs.NotFound {
			t.Errorf("User(9999): %v; want not found", err)
		}
		if err := s.Grant(ctx, "alice", Role{App: "roar", Name: "moderator"}); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.User(ctx, u.ID); !got.Has("roar", "moderator") {
			t.Error("Grant(alice, roar moderator): not a moderator")
		}
		if err := s.Grant(ctx, "nobody", Role{App: "roar", Name: "moderator"}); errs.KindOf(err) != errs.NotFound {
			t.Errorf("Grant(nobody): %v; want not found", err)
		}
		if a, err := s.store.byLogin(ctx, "ALICE@example.COM"); err != nil || a.ID != u.ID || !CheckPassword(a.hash, "password1") {
			t.Errorf("byLogin by e-mail: %v, %v; want user %d with the hash", a, err, u.ID)
		}
	}, Migrations)
}

func TestStoreDeleteRunsHooks(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newTestService(t, d)
		u, err := s.CreateWithHash(ctx, Signup{Username: "gone", Email: "gone@example.com"}, "$argon2id$x")
		if err != nil {
			t.Fatal(err)
		}
		var inTx, after []int64
		s.OnDelete(func(ctx context.Context, tx *db.Tx, id int64) error {
			var n int
			if err := db.Scan(tx.QueryRow(ctx, "SELECT COUNT(*) FROM users WHERE id = ?", id), &n); err != nil || n != 1 {
				t.Errorf("in the hook the user row: %d, %v; want still there", n, err)
			}
			inTx = append(inTx, id)
			return nil
		}, func(ctx context.Context, id int64) { after = append(after, id) })
		// A failing hook rolls the whole deletion back.
		s2 := newTestService(t, d)
		s2.OnDelete(func(context.Context, *db.Tx, int64) error { return errs.ErrConflict }, nil)
		if err := s2.Delete(ctx, u.ID); err == nil {
			t.Fatal("delete with a failing hook: nil error")
		}
		if _, err := s.User(ctx, u.ID); err != nil {
			t.Fatalf("after a failed delete: %v; want the user kept", err)
		}
		if err := s.Delete(ctx, u.ID); err != nil {
			t.Fatal(err)
		}
		if len(inTx) != 1 || inTx[0] != u.ID || len(after) != 1 || after[0] != u.ID {
			t.Errorf("hooks saw %v in tx and %v after; want [%d] each", inTx, after, u.ID)
		}
		if _, err := s.User(ctx, u.ID); errs.KindOf(err) != errs.NotFound {
			t.Errorf("after delete: %v; want not found", err)
		}
	}, Migrations)
}

func TestDBStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		now := time.Unix(1_800_000_000, 0)
		st := NewDBStore(d)
		st.now = func() time.Time { return now }
		if _, ok, err := st.FindCtx(ctx, "none"); ok || err != nil {
			t.Fatalf("find missing: %v %v; want not found, nil", ok, err)
		}
		if err := st.CommitCtx(ctx, "a", []byte("one"), now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := st.CommitCtx(ctx, "a", []byte("two"), now.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := st.Commit("old", []byte("x"), now.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if b, ok, err := st.Find("a"); !ok || err != nil || string(b) != "two" {
			t.Errorf("find a: %q %v %v; want two", b, ok, err)
		}
		if _, ok, _ := st.FindCtx(ctx, "old"); ok {
			t.Error("expired session found")
		}
		if n, err := st.Cleanup(ctx); err != nil || n != 1 {
			t.Errorf("cleanup: %d, %v; want 1", n, err)
		}
		if err := st.Delete("a"); err != nil {
			t.Fatal(err)
		}
		if err := st.DeleteCtx(ctx, "a"); err != nil {
			t.Errorf("second delete: %v; want nil", err)
		}
		if _, ok, _ := st.FindCtx(ctx, "a"); ok {
			t.Error("deleted session found")
		}

		// Revoke deletes the session and lists it until IdleTimeout; twice is fine.
		revoked := func() (n int) {
			t.Helper()
			if err := db.Scan(d.QueryRow(ctx, "SELECT COUNT(*) FROM session_revocations WHERE token = 'b'"), &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if err := st.CommitCtx(ctx, "b", []byte("x"), now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := st.Revoke(ctx, "b"); err != nil {
				t.Fatalf("revoke: %v", err)
			}
		}
		if _, ok, _ := st.FindCtx(ctx, "b"); ok || revoked() != 1 {
			t.Errorf("after Revoke: found %v, listed %d; want false, 1", ok, revoked())
		}
		st.Cleanup(ctx)
		if revoked() != 1 {
			t.Error("a revocation within IdleTimeout cleaned up")
		}
		now = now.Add(IdleTimeout)
		st.Cleanup(ctx)
		if revoked() != 0 {
			t.Error("a revocation past IdleTimeout not cleaned up")
		}
	}, Migrations)
}
