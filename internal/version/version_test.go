package version_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/version"
)

// table is a fake database of versions that counts its reads.
type table struct {
	mu    sync.Mutex
	v     map[string]int64
	reads int
}

var errUnknown = fmt.Errorf("unknown id: %w", errs.ErrNotFound)

func (t *table) load(_ context.Context, id string) (version.Stamp, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reads++
	v, ok := t.v[id]
	if !ok {
		return version.Stamp{}, errUnknown
	}
	return version.Stamp{V: v}, nil
}

func (t *table) bump(id string) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.v[id]++
	return t.v[id]
}

func (t *table) readsSoFar() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reads
}

func get(t *testing.T, s version.Versions, id string) int64 {
	t.Helper()
	st, err := s.Get(context.Background(), "s", id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return st.V
}

func TestMemoryBumpThenGet(t *testing.T) {
	tb := &table{v: map[string]int64{"a": 5}}
	m := version.NewMemory()
	m.Register("s", tb.load)
	if v := get(t, m, "a"); v != 5 {
		t.Fatalf("first Get = %d, want 5", v)
	}
	// After the first read, the database is not read again: a change made
	// here is known at once.
	m.Raise("s", "a", version.Stamp{V: tb.bump("a")})
	if v := get(t, m, "a"); v != 6 {
		t.Fatalf("after Raise: %d, want 6", v)
	}
	tb.bump("a")
	m.Bump("s", "a")
	if v := get(t, m, "a"); v != 7 {
		t.Fatalf("after Bump: %d, want 7", v)
	}
	// A reader that loaded an older stamp cannot lower it.
	m.Raise("s", "a", version.Stamp{V: 3})
	if v := get(t, m, "a"); v != 7 {
		t.Fatalf("after an older Raise: %d, want 7", v)
	}
	if tb.readsSoFar() != 1 {
		t.Fatalf("%d reads of the database, want 1", tb.readsSoFar())
	}
	allocs := testing.AllocsPerRun(100, func() { get(t, m, "a") })
	if allocs != 0 {
		t.Fatalf("a Get allocates %v times", allocs)
	}
	// An unknown id is an error, and is read again next time.
	if _, err := m.Get(context.Background(), "s", "zz"); !errors.Is(err, errUnknown) {
		t.Fatalf("unknown id: %v", err)
	}
	// Forget: read from the database again.
	m.Forget("s", "a")
	get(t, m, "a")
	if tb.readsSoFar() != 3 {
		t.Fatalf("%d reads, want 3 (a, zz, a after Forget)", tb.readsSoFar())
	}
}

func TestStampPast(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, c := range []struct {
		until int64
		want  bool
	}{{0, false}, {999, true}, {1000, true}, {1001, false}} {
		if got := (version.Stamp{V: 1, Until: c.until}).Past(now); got != c.want {
			t.Errorf("Until %d: Past = %v, want %v", c.until, got, c.want)
		}
	}
}

// Two instances on one database: each sees its own change on its next Get,
// the other's once heard of (the bus), or after MaxAge without a message.
func TestDatabaseTwoInstances(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tb := &table{v: map[string]int64{"a": 1}}
		one, two := version.NewDatabase(), version.NewDatabase()
		one.Register("s", tb.load)
		two.Register("s", tb.load)
		get(t, one, "a")
		get(t, two, "a")
		reads := tb.readsSoFar()
		for range 10 {
			get(t, one, "a")
			get(t, two, "a")
		}
		if n := tb.readsSoFar() - reads; n != 0 {
			t.Fatalf("%d reads for trusted stamps, want 0", n)
		}
		// A change on one: one's next Get has it.
		tb.bump("a")
		one.Bump("s", "a")
		if v := get(t, one, "a"); v != 2 {
			t.Fatalf("one after its own change: %d, want 2", v)
		}
		if v := get(t, two, "a"); v != 1 {
			t.Fatalf("two before hearing: %d, want 1 (trusted)", v)
		}
		// two hears of it on the bus.
		two.Heard("s", "a")
		if v := get(t, two, "a"); v != 2 {
			t.Fatalf("two after hearing: %d, want 2", v)
		}
		// A message lost: two is stale for MaxAge at most.
		tb.bump("a")
		one.Bump("s", "a")
		if v := get(t, two, "a"); v != 2 {
			t.Fatalf("two before MaxAge: %d, want 2", v)
		}
		time.Sleep(version.MaxAge) // fake time in the bubble
		if v := get(t, two, "a"); v != 3 {
			t.Fatalf("two after MaxAge: %d, want 3", v)
		}
		// Fresh reads every time.
		reads = tb.readsSoFar()
		tb.bump("a")
		if st, err := two.Fresh(context.Background(), "s", "a"); err != nil || st.V != 4 {
			t.Fatalf("Fresh = %v, %v; want 4", st, err)
		}
		if tb.readsSoFar() != reads+1 {
			t.Fatal("Fresh did not read the database")
		}
	})
}

// The real thing: two services over one database (SQLite, and PostgreSQL
// when TUTTI_TEST_POSTGRES is set), the second hearing of the first's
// changes on the core's bus.
func TestVersionsOverTheBus(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ctx := context.Background()
		if _, err := m.DB.Exec(ctx, `CREATE TABLE version_test (id TEXT PRIMARY KEY, v BIGINT NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		if _, err := m.DB.Exec(ctx, `INSERT INTO version_test (id, v) VALUES (?, 1)`, "a"); err != nil {
			t.Fatal(err)
		}
		load := func(ctx context.Context, id string) (version.Stamp, error) {
			var st version.Stamp
			err := db.Scan(m.DB.QueryRow(ctx, `SELECT v FROM version_test WHERE id = ?`, id), &st.V)
			return st, err
		}
		one, two := version.For(m.DB), version.For(m.DB)
		one.Register("t", load)
		two.Register("t", load)
		heard := make(chan struct{}, 1)
		unsub, err := m.Bus.Subscribe("version.test", func(_ string, data []byte) {
			two.Heard("t", string(data))
			heard <- struct{}{}
		})
		if err != nil {
			t.Fatal(err)
		}
		defer unsub()
		for _, s := range []version.Versions{one, two} {
			if st, err := s.Get(ctx, "t", "a"); err != nil || st.V != 1 {
				t.Fatalf("Get = %v, %v; want 1", st, err)
			}
		}
		if _, err := m.DB.Exec(ctx, `UPDATE version_test SET v = v + 1 WHERE id = ?`, "a"); err != nil {
			t.Fatal(err)
		}
		one.Bump("t", "a")
		if st, _ := one.Get(ctx, "t", "a"); st.V != 2 {
			t.Fatalf("one after its change: %d, want 2", st.V)
		}
		if err := m.Bus.Publish("version.test", []byte("a")); err != nil {
			t.Fatal(err)
		}
		<-heard
		// With SQLite there is one process: two never trusts a read, it is
		// in memory, so only PostgreSQL's two reads the database again.
		want := int64(2)
		if m.DB.Dialect == db.SQLite {
			want = 1
		}
		if st, _ := two.Get(ctx, "t", "a"); st.V != want {
			t.Fatalf("two after hearing: %d, want %d", st.V, want)
		}
		if _, err := one.Get(ctx, "t", "b"); err == nil {
			t.Fatal("unknown id: no error")
		}
	})
}
