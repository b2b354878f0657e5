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
// writer and nothing paying for the gateway (a sweep settles a hold left
// paying by its charge's key), then checks event: every successful charge
// has exactly one registration, for its amount, and every registration its
// charge; bibs are unique; the event's counters agree and it is within its
// cap; and more than min runners registered.
func Settled(t testing.TB, count Count, event int64, min int, wait time.Duration) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for count(`SELECT count(*) FROM race_holds WHERE status IN ('paying', 'paid')`) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%v after the burst: %d holds still paying or paid", wait, count(`SELECT count(*) FROM race_holds WHERE status IN ('paying', 'paid')`))
		}
		time.Sleep(500 * time.Millisecond)
	}
	regs := count(`SELECT count(*) FROM race_registrations WHERE event_id = ?`, event)
	paid := count(`SELECT count(*) FROM pay_test_payments WHERE outcome = 'paid' AND idem_key LIKE 'race-%'`)
	// Every successful charge has exactly one registration, by the hold
	// its key names, for its amount...
	if n := count(`SELECT count(*) FROM pay_test_payments p WHERE p.outcome = 'paid' AND p.idem_key LIKE 'race-%'
		AND (SELECT count(*) FROM race_registrations r WHERE p.idem_key = 'race-' || r.hold_id || '-0' AND r.payment_id = p.id AND r.amount = p.amount) <> 1`); n != 0 {
		t.Errorf("%d successful charges without exactly one registration; want 0", n)
	}
	// ... and every registration its charge.
	if n := count(`SELECT count(*) FROM race_registrations r WHERE NOT EXISTS (SELECT 1 FROM pay_test_payments p
		WHERE p.id = r.payment_id AND p.outcome = 'paid')`); n != 0 {
		t.Errorf("%d registrations without a successful charge; want 0", n)
	}
	if n := count(`SELECT count(*) FROM (SELECT bib FROM race_registrations WHERE race_id = (SELECT race_id FROM race_events WHERE id = ?)
		GROUP BY bib HAVING count(*) > 1) AS twice`, event); n != 0 {
		t.Errorf("%d bibs given twice; want 0", n)
	}
	taken := count(`SELECT taken FROM race_events WHERE id = ?`, event)
	confirmed := count(`SELECT confirmed FROM race_events WHERE id = ?`, event)
	cap := count(`SELECT cap FROM race_events WHERE id = ?`, event)
	if confirmed != regs || taken > cap || regs > cap {
		t.Errorf("event: taken %d, confirmed %d, %d registrations, cap %d; want confirmed = registrations <= taken <= cap",
			taken, confirmed, regs, cap)
	}
	if regs < min || paid != regs {
		t.Errorf("%d registrations, %d successful charges; want them equal, and more than %d (the rush went on after the kill)", regs, paid, min)
	}
	t.Logf("settled: %d registrations, %d charges, taken %d of %d", regs, paid, taken, cap)
}
