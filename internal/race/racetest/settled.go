// Package racetest holds what race's crash tests share, in embedded mode
// (internal/race) and against the local cluster (deploy): the checks once a
// rush cut by a kill has settled.
package racetest

import (
	"context"
	"crypto/tls"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/race"
)

// Rush starts the crash tests' burst against target: runners (from the
// seed file of `tutti seed race`) arriving within the given time, through
// the whole wizard with short pauses, no static files. Its result comes on
// the channel (nil if the run could not start).
func Rush(t testing.TB, target *url.URL, seedFile string, runners int, within time.Duration, tlsConfig *tls.Config) <-chan *load.Result {
	t.Helper()
	sc, err := race.LoadScenarios()["race-burst"](load.Options{Target: target, SeedFile: seedFile,
		Params: map[string]string{"runners": strconv.Itoa(runners), "within": within.String(), "delay": "0s-200ms", "click": "0s-50ms", "assets": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *load.Result, 1)
	go func() {
		res, err := load.Run(context.Background(), sc, load.Config{Target: target, Phases: sc.Phases, Timeout: 10 * time.Second,
			Grace: time.Minute, Seed: 5, TLS: tlsConfig})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	return done
}

// Count runs a query that counts, with ? placeholders, on the site's
// database, failing the test on an error.
type Count func(q string, args ...any) int

// Settled waits (up to wait) until nothing paid waits for the registration
// writer and nothing paying for the gateway (Settle), then checks event
// (Check), the only one with charges: every successful charge has exactly
// one registration, for its amount, and every registration its charge;
// and more than min runners registered.
func Settled(t testing.TB, count Count, event int64, min int, wait time.Duration) {
	t.Helper()
	Settle(t, count, wait)
	regs, paid := Check(t, count, event)
	if regs < min || paid != regs {
		t.Errorf("%d registrations, %d successful charges; want them equal, and more than %d (the rush went on after the kill)", regs, paid, min)
	}
}

// Settle waits (up to wait) until nothing paid waits for the registration
// writer and nothing paying for the gateway (a sweep settles a hold left
// paying by its charge's key).
func Settle(t testing.TB, count Count, wait time.Duration) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for count(`SELECT count(*) FROM race_holds WHERE status IN ('paying', 'paid')`) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%v after the burst: %d holds still paying or paid", wait, count(`SELECT count(*) FROM race_holds WHERE status IN ('paying', 'paid')`))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Check checks the race charges of the site, settled, and events: every
// successful charge has exactly one registration, by the hold its key
// names, for its amount, and every registration its charge; no runner is
// charged twice for an event or registered twice for it; and in each
// event, bibs are unique and the counters agree and stay within its cap.
// It returns the events' registrations and the site's successful race
// charges: equal when events are all the events charged for.
func Check(t testing.TB, count Count, events ...int64) (regs, paid int) {
	t.Helper()
	paid = count(`SELECT count(*) FROM pay_test_payments WHERE outcome = 'paid' AND idem_key LIKE 'race-%'`)
	if n := count(`SELECT count(*) FROM pay_test_payments p WHERE p.outcome = 'paid' AND p.idem_key LIKE 'race-%'
		AND (SELECT count(*) FROM race_registrations r WHERE p.idem_key = 'race-' || r.hold_id || '-0' AND r.payment_id = p.id AND r.amount = p.amount) <> 1`); n != 0 {
		t.Errorf("%d successful charges without exactly one registration; want 0", n)
	}
	if n := count(`SELECT count(*) FROM race_registrations r WHERE NOT EXISTS (SELECT 1 FROM pay_test_payments p
		WHERE p.id = r.payment_id AND p.outcome = 'paid')`); n != 0 {
		t.Errorf("%d registrations without a successful charge; want 0", n)
	}
	if n := count(`SELECT count(*) FROM (SELECT h.user_id FROM pay_test_payments p JOIN race_holds h ON p.idem_key = 'race-' || h.id || '-0'
		WHERE p.outcome = 'paid' GROUP BY h.event_id, h.user_id HAVING count(*) > 1) AS twice`); n != 0 {
		t.Errorf("%d runners charged more than once for an event; want 0", n)
	}
	for _, event := range events {
		n := count(`SELECT count(*) FROM race_registrations WHERE event_id = ?`, event)
		regs += n
		if twice := count(`SELECT count(*) FROM (SELECT user_id FROM race_registrations WHERE event_id = ?
			GROUP BY user_id HAVING count(*) > 1) AS twice`, event); twice != 0 {
			t.Errorf("event %d: %d runners registered more than once; want 0", event, twice)
		}
		if twice := count(`SELECT count(*) FROM (SELECT bib FROM race_registrations WHERE race_id = (SELECT race_id FROM race_events WHERE id = ?)
			GROUP BY bib HAVING count(*) > 1) AS twice`, event); twice != 0 {
			t.Errorf("event %d: %d bibs given twice; want 0", event, twice)
		}
		taken := count(`SELECT taken FROM race_events WHERE id = ?`, event)
		confirmed := count(`SELECT confirmed FROM race_events WHERE id = ?`, event)
		cap := count(`SELECT cap FROM race_events WHERE id = ?`, event)
		if confirmed != n || taken > cap || n > cap {
			t.Errorf("event %d: taken %d, confirmed %d, %d registrations, cap %d; want confirmed = registrations <= taken <= cap",
				event, taken, confirmed, n, cap)
		}
		t.Logf("event %d settled: %d registrations, taken %d of %d", event, n, taken, cap)
	}
	t.Logf("settled: %d registrations, %d race charges on the site", regs, paid)
	return regs, paid
}
