package auth

import (
	"context"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// In embedded mode a user is read from memory; another process's change
// (`tutti role grant` beside the server) still shows within a look of the
// database's watcher (db.OnOthers), not only after memoFor.
func TestOthersChangeShows(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	open := func() *db.DB {
		d, err := db.Open(ctx, "", dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		if err := d.Migrate(ctx, nil, Migrations); err != nil {
			t.Fatal(err)
		}
		return d
	}
	server, other := newTestService(t, open()), newTestService(t, open())
	hash, err := HashPassword("password1")
	if err != nil {
		t.Fatal(err)
	}
	u, err := server.CreateWithHash(ctx, Signup{Username: "mod", Email: "mod@example.com"}, hash)
	if err != nil {
		t.Fatal(err)
	}
	moderator := func() bool {
		t.Helper()
		got, err := server.User(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Has("roar", "moderator")
	}
	// The watcher read where the database stood when it started (OnOthers):
	// the grant below is a change to it, whenever its first look comes.
	if moderator() {
		t.Fatal("a new user is a moderator")
	}
	if _, ok := server.store.mem.Get(u.ID); !ok {
		t.Fatal("the user is not held in memory: the test proves nothing")
	}
	if err := other.Grant(ctx, "mod", Role{App: "roar", Name: "moderator"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !moderator() {
		if time.Now().After(deadline) {
			t.Fatal("another process's change did not show within 5 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
