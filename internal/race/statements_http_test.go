package race_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/pay"
)

// statementsPerRegistration bounds what one registration through the
// whole wizard costs the database, as the instances count it
// (apptest.Queries: a transaction and each statement in it; the writer's
// batch, background work, is not counted): the rush's cost in the cluster,
// where each is a round trip to PostgreSQL. Measured: SQLite 19 (holds,
// sessions and accounts kept in memory), PostgreSQL 41 (of which 20 are
// the session and account of each signed-in request, and 3 the test
// gateway's ledger); 22 and 44 before the claim refused a runner
// registered or holding already by itself (a read less: Store.Claim) and
// the hand-off went into the writer's transaction (checkout.HandOff).
var statementsPerRegistration = map[db.Dialect]int64{db.SQLite: 19, db.Postgres: 41}

// transactionsPerRegistration bounds the write transactions (BEGIN ...
// COMMIT: db.DB.Transactions) of the same walk, which each wait for a
// commit's flush: the hold, the details, the waiver, the start of the
// payment and the test gateway's ledger; the hand-off is in the writer's
// (one for a whole batch of runners, not counted here). Six before
// (the hand-off a transaction of its own).
var transactionsPerRegistration = map[db.Dialect]int64{db.SQLite: 5, db.Postgres: 5}

// One runner's registration through the whole wizard, as the rush's
// runner walks it (load.go: the race page, the event page, the hold, the
// details, the waiver, the pay page, the payment, the waiting page as it
// refreshes, the confirmation), costs at most statementsPerRegistration
// statements and transactionsPerRegistration write transactions, counted
// request by request (the table is logged). The
// second runner is counted: the first warms the caches, as the rush's
// first runners do. On PostgreSQL with pg_stat_statements loaded, the
// statements themselves are logged too.
func TestStatementsPerRegistration(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		slug := publishRace(t, signedIn(t, m, "dora"), "10")
		walk(t, m, signedIn(t, m, "ann"), slug, nil)
		bea := signedIn(t, m, "bea")
		pg := pgStatements(t, m)
		var steps []string
		total, txs := walk(t, m, bea, slug, &steps)
		t.Logf("%d statements, %d write transactions for one registration (%s), statements/transactions of each request:\n  %s",
			total, txs, m.DB.Dialect, strings.Join(steps, "\n  "))
		if pg != nil {
			t.Logf("pg_stat_statements, calls and statement:\n%s", pg())
		}
		if limit := statementsPerRegistration[m.DB.Dialect]; total > limit {
			t.Errorf("%d statements for one registration; want at most %d", total, limit)
		}
		if limit := transactionsPerRegistration[m.DB.Dialect]; txs > limit {
			t.Errorf("%d write transactions for one registration; want at most %d", txs, limit)
		}
	})
}

// walk registers p in slug's first event through the wizard, as load.go's
// runner does, and returns the statements and the write transactions it
// cost; steps, if not nil, gets each request's counts.
func walk(t *testing.T, m *app.Main, p *person, slug string, steps *[]string) (total, txs int64) {
	t.Helper()
	step := func(name string, do func() (*http.Response, string)) (*http.Response, string) {
		t.Helper()
		before, beforeTx := apptest.Queries(m), transactions(m)
		res, body := do()
		n, nt := apptest.Queries(m)-before, transactions(m)-beforeTx
		total += n
		txs += nt
		if steps != nil {
			*steps = append(*steps, fmt.Sprintf("%2d %d  %s %d", n, nt, name, res.StatusCode))
		}
		return res, body
	}
	race := "/race/r/" + slug
	// The race page is everyone's, cached for seconds: what it costs
	// depends on its cache's age (a slow run renders it again), not on
	// the runner. It is logged, not counted.
	before := apptest.Queries(m)
	_, page := p.Get(race)
	if steps != nil {
		*steps = append(*steps, fmt.Sprintf("(%d) GET race page, not counted", apptest.Queries(m)-before))
	}
	ev := eventID.FindStringSubmatch(page)
	if ev == nil {
		t.Fatalf("no event on the race page: %.2000s", page)
	}
	step("GET event page", func() (*http.Response, string) { return p.Get(race + "/register?event=" + ev[1]) })
	// A form posted, and the page it sends the runner to.
	post := func(name, path string, form url.Values) string {
		t.Helper()
		res, body := step("POST "+name, func() (*http.Response, string) { return p.Post(path, form) })
		to := apptest.WantRedirect(t, res, body)
		res, body = step("GET "+to[strings.LastIndex(to, "/")+1:], func() (*http.Response, string) { return p.Get(to) })
		apptest.WantStatus(t, res, body, http.StatusOK)
		return to
	}
	path := post("register", race+"/register", url.Values{"event": {ev[1]}})
	entry := strings.TrimSuffix(path, "/details")
	if entry == path {
		t.Fatalf("holding a place: %s", path)
	}
	post("details", entry+"/details", url.Values{"first_name": {"Runner"}, "last_name": {"Two"}, "email": {"two@example.com"},
		"birth_date": {"1988-02-03"}, "gender": {"F"}, "city": {"Rush City"}, "emergency": {"Al, 555 0100"}})
	post("waiver", entry+"/waiver", url.Values{"accept": {"yes"}})
	res, body := step("GET pay", func() (*http.Response, string) { return p.Get(entry + "/pay") })
	apptest.WantStatus(t, res, body, http.StatusOK)
	res, body = step("POST pay", func() (*http.Response, string) { return p.Post(entry+"/pay", url.Values{"card": {pay.CardPaid}}) })
	path = apptest.WantRedirect(t, res, body)
	for deadline := time.Now().Add(20 * time.Second); strings.HasSuffix(path, "/wait"); {
		if time.Now().After(deadline) {
			t.Fatal("the registration not written in 20 s")
		}
		if res, body = step("GET wait", func() (*http.Response, string) { return p.Get(path) }); res.StatusCode == http.StatusSeeOther {
			path = apptest.WantRedirect(t, res, body)
		}
	}
	res, body = step("GET done", func() (*http.Response, string) { return p.Get(path) })
	apptest.WantStatus(t, res, body, http.StatusOK)
	if !strings.HasSuffix(path, "/done") || !strings.Contains(body, `class="bib"`) {
		t.Fatalf("after paying: %s %.2000s", path, body)
	}
	return total, txs
}

// transactions is the count of write transactions begun by m's instances
// for requests (db.DB.Transactions).
func transactions(m *app.Main) int64 {
	var n int64
	for _, i := range apptest.Instances(m) {
		n += i.DB.Transactions()
	}
	return n
}

// pgStatements, on PostgreSQL with pg_stat_statements loaded, clears its
// counts for m's database and returns what lists them later (most called
// first); nil elsewhere.
func pgStatements(t *testing.T, m *app.Main) func() string {
	t.Helper()
	if m.DB.Dialect != db.Postgres {
		return nil
	}
	ctx := db.Uncounted(context.Background())
	if _, err := m.DB.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		t.Logf("no pg_stat_statements: %v", err)
		return nil
	}
	if _, err := m.DB.Exec(ctx, `SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)`); err != nil {
		t.Logf("pg_stat_statements not loaded (shared_preload_libraries): %v", err)
		return nil
	}
	return func() string {
		rows, err := m.DB.Query(ctx, `SELECT calls, regexp_replace(query, '\s+', ' ', 'g') FROM pg_stat_statements
			WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'
			ORDER BY calls DESC, query`)
		if err != nil {
			return err.Error()
		}
		defer rows.Close()
		var b strings.Builder
		var sum int64
		for rows.Next() {
			var calls int64
			var q string
			if err := rows.Scan(&calls, &q); err != nil {
				return err.Error()
			}
			sum += calls
			fmt.Fprintf(&b, "%4d  %.220s\n", calls, q)
		}
		fmt.Fprintf(&b, "%4d  in all (the writer's and other background work too)\n", sum)
		return b.String()
	}
}
