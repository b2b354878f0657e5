package auth

import (
	"context"
	"io/fs"
	"slices"
	"strconv"
	"testing"
	"testing/fstest"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
)

// TestRoles: a user carries the roles granted to them, loaded with the
// account in its one statement; grants are idempotent, revokes take them
// away, the holders list pages by id, and a deleted account's go with it.
func TestRoles(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := newTestService(t, d)
		hash, err := HashPassword("password1")
		if err != nil {
			t.Fatal(err)
		}
		var users []*User
		for _, name := range []string{"ann", "bob", "cat"} {
			u, err := s.CreateWithHash(ctx, Signup{Username: name, Email: name + "@example.com"}, hash)
			if err != nil {
				t.Fatal(err)
			}
			users = append(users, u)
		}
		mod, dir := Role{App: "roar", Name: "moderator"}, Role{App: "race", Name: "helper"}
		for _, g := range []struct {
			user string
			r    Role
		}{{"ann", mod}, {"ann", dir}, {"ANN", mod}, {"cat", mod}, {"bob", dir}} {
			if err := s.Grant(ctx, g.user, g.r); err != nil {
				t.Fatalf("Grant(%s, %s): %v", g.user, g.r, err)
			}
		}
		before := d.Queries()
		s.Forget() // read from the database, not from memory
		ann, err := s.User(ctx, users[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if n := d.Queries() - before; n != 1 {
			t.Errorf("loading a user with roles cost %d statements; want 1", n)
		}
		if want := []Role{dir, mod}; !slices.Equal(ann.Roles, want) {
			t.Errorf("ann's roles: %v; want %v", ann.Roles, want)
		}
		if !ann.Has("roar", "moderator") || ann.Has("roar", "helper") || ann.Has("meet", "moderator") {
			t.Errorf("ann.Has: wrong answers for %v", ann.Roles)
		}
		if (*User)(nil).Has("roar", "moderator") {
			t.Error("a visitor holds a role")
		}
		if bob, _ := s.ByUsername(ctx, "bob"); bob.Has("roar", "moderator") || !bob.Has("race", "helper") {
			t.Errorf("bob's roles: %v; want race helper only", bob.Roles)
		}

		if err := s.Revoke(ctx, "ann", mod); err != nil {
			t.Fatal(err)
		}
		if err := s.Revoke(ctx, "ann", mod); err != nil { // again: nothing to do
			t.Fatal(err)
		}
		if ann, _ := s.User(ctx, users[0].ID); ann.Has("roar", "moderator") || !ann.Has("race", "helper") {
			t.Errorf("after revoking: %v; want race helper only", ann.Roles)
		}
		if err := s.Grant(ctx, "nobody", mod); errs.KindOf(err) != errs.NotFound {
			t.Errorf("Grant(nobody): %v; want not found", err)
		}
		if err := s.Grant(ctx, "bob", Role{App: "roar", Name: "Mod erator"}); errs.KindOf(err) != errs.Invalid {
			t.Errorf("Grant(a malformed role): %v; want invalid", err)
		}

		// Holders, one page at a time.
		if err := s.Grant(ctx, "bob", mod); err != nil {
			t.Fatal(err)
		}
		var got []string
		var after db.Cursor
		for range 5 {
			page, err := s.RoleHolders(ctx, mod, after, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			got = append(got, page[0].Username)
			after = db.Cursor{ID: page[0].ID}
		}
		if want := []string{"bob", "cat"}; !slices.Equal(got, want) {
			t.Errorf("moderators page by page: %v; want %v", got, want)
		}

		// A deleted account's roles go with it.
		if err := s.Delete(ctx, users[2].ID); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.Scan(d.QueryRow(ctx, "SELECT COUNT(*) FROM user_roles WHERE user_id = ?", users[2].ID), &n); err != nil || n != 0 {
			t.Errorf("a deleted user's grants: %d, %v; want 0", n, err)
		}
	}, Migrations)
}

// TestModeratorColumnBecomesARole: the migration copies the users table's
// old moderator flag into user_roles as roar's moderator role.
func TestModeratorColumnBecomesARole(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		if err := d.Migrate(ctx, nil, migrationsUpTo(t, 3)); err != nil {
			t.Fatal(err)
		}
		for i, name := range []string{"mod", "plain"} {
			if _, err := d.Exec(ctx, `INSERT INTO users (username, username_key, email, email_key, password_hash, moderator, created_at, updated_at)
				VALUES (?, ?, ?, ?, 'x', ?, 1, 1)`, name, name, name+"@example.com", name+"@example.com", i == 0); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Migrate(ctx, nil, Migrations); err != nil {
			t.Fatal(err)
		}
		s := newTestService(t, d)
		for name, want := range map[string]bool{"mod": true, "plain": false} {
			u, err := s.ByUsername(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			if u.Has("roar", "moderator") != want {
				t.Errorf("%s after the migration: roles %v; want moderator %v", name, u.Roles, want)
			}
		}
	})
}

// migrationsUpTo is auth's migrations numbered up to n only.
func migrationsUpTo(t *testing.T, n int) db.Migrations {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(Migrations.FS, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if v, err := strconv.Atoi(e.Name()[:5]); err != nil || v > n {
			return nil
		}
		b, err := fs.ReadFile(Migrations.FS, path)
		m[path] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return db.Migrations{App: Migrations.App, FS: m}
}
