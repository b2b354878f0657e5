package app_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// Visitors' cached pages come from the replica once it shows their version;
// a change it has not replayed yet is read from the primary, so nobody sees
// a page older than its version (a participant sees their own answer); a
// stopped replica costs no error, and a restarted one serves again.
// Needs TUTTI_TEST_REPLICA=1 (a primary and replica of its own).
func TestReplicaServesVisitorsPages(t *testing.T) {
	pair := dbtest.StartPair(t)
	m := apptest.StartWith(t, func(c *config.Config) {
		c.DatabaseURL, c.DatabaseReplicaURL = pair.Primary, pair.Replica
	})
	ctx := context.Background()
	rep, err := db.Open(ctx, pair.Replica, "")
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	w := apptest.NewWeb(t, m)
	start := time.Now().AddDate(0, 0, 10)
	res, body := w.Post("/meet/polls", url.Values{"title": {"Replica dinner"},
		"start_date": {start.Format("2006-01-02")}, "end_date": {start.AddDate(0, 0, 2).Format("2006-01-02")},
		"day_start": {"09:00"}, "day_end": {"17:00"}, "tz": {"Europe/Berlin"}})
	admin := apptest.WantRedirect(t, res, body)
	pub := regexp.MustCompile(`^/meet/polls/[A-Za-z0-9_-]{22}`).FindString(admin)
	join := func(name string) {
		t.Helper()
		res, body := w.Post(pub+"/participants", url.Values{"name": {name}})
		apptest.WantRedirect(t, res, body)
	}
	replayed := func(n int) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			var got int
			if err := db.Scan(rep.QueryRow(ctx, "SELECT count(*) FROM meet_participants"), &got); err == nil && got >= n {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("the replica did not replay %d participants", n)
			}
		}
	}
	page := func(want string) {
		t.Helper()
		res, body := w.Get(pub)
		if res.StatusCode != 200 || !strings.Contains(body, want) {
			t.Fatalf("poll page: status %d, %q shown %v; want 200 showing it", res.StatusCode, want, strings.Contains(body, want))
		}
	}

	join("Ada")
	replayed(1)
	served0, fell0, behind0 := m.DB.ReplicaStats()
	page("Ada")
	served1, fell1, behind1 := m.DB.ReplicaStats()
	if served1-served0 != 1 || fell1 != fell0 || behind1 != behind0 {
		t.Errorf("the page's fill: %d reads on the replica, %d fell back, %d behind; want 1 (poll with its version, people, times and comments in one), 0, 0",
			served1-served0, fell1-fell0, behind1-behind0)
	}

	// roar's public timeline for visitors: filled from the replica too.
	if res, _ := w.Get("/roar/"); res.StatusCode != 200 {
		t.Fatalf("roar's public page: %d; want 200", res.StatusCode)
	}
	if s, _, _ := m.DB.ReplicaStats(); s-served1 < 2 {
		t.Errorf("roar's public page: %d reads on the replica; want >= 2 (version, timeline)", s-served1)
	}
	served1, _, _ = m.DB.ReplicaStats()

	// The replica stops replaying: Grace's answer is not on it, and the page
	// at her version comes from the primary.
	if _, err := rep.SQL().ExecContext(ctx, "SELECT pg_wal_replay_pause()"); err != nil {
		t.Fatal(err)
	}
	join("Grace")
	page("Grace")
	if _, _, behind := m.DB.ReplicaStats(); behind != behind1+1 {
		t.Errorf("behind %d; want %d (the page read from the primary)", behind, behind1+1)
	}
	if _, err := rep.SQL().ExecContext(ctx, "SELECT pg_wal_replay_resume()"); err != nil {
		t.Fatal(err)
	}
	rep.Close()

	// The replica is down: the pages are read from the primary, with no error.
	pair.StopReplica(t)
	join("Linus")
	page("Linus")
	if res, _ := w.Get("/roar/"); res.StatusCode != 200 {
		t.Errorf("roar's public page with the replica down: %d; want 200", res.StatusCode)
	}
	_, fell2, _ := m.DB.ReplicaStats()
	if fell2 == fell1 {
		t.Error("no read fell back to the primary with the replica down")
	}

	// It is back: after its back-off the pages come from it again.
	pair.StartReplica(t)
	if rep, err = db.Open(ctx, pair.Replica, ""); err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	for i, end := 0, time.Now().Add(15*time.Second); ; i++ {
		name := "Margaret" + strings.Repeat("x", i)
		join(name)
		replayed(4 + i)
		served, _, _ := m.DB.ReplicaStats()
		page(name)
		if s, _, _ := m.DB.ReplicaStats(); s-served == 1 { // the whole page: poll, people, times, comments
			break
		}
		if time.Now().After(end) {
			t.Fatal("the pages did not return to the restarted replica")
		}
		time.Sleep(300 * time.Millisecond)
	}
}
