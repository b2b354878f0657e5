package deploy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/race"
	"github.com/tutti-dev/tutti/internal/race/racetest"
)

// Race in TestClusterChaos: under each break a registration rush goes
// through nginx into a race of its own (its own waiting room) whose one
// event has fewer places than runners. The room lets chaosRoomRate runners
// in a second (TUTTI_ROOM_RATE), so that most of a rush waits in it. Once
// the rush is over and its payments settled, the primary must show no
// runner registered or charged twice, every charge with exactly one
// registration and every registration its charge, no event over its cap
// and every runner registered or told the event sold out; and the room
// must have kept its order (checkOrder).
const (
	chaosRoomRate    = 10 // runners let in a second, in bursts of as many
	chaosRushRunners = 40 // each rush's runners, arriving within a second
	chaosRushPlaces  = 15 // the places of each rush's event
)

// raceChaos is the races of TestClusterChaos's rushes, seeded before the load.
type raceChaos struct {
	t       *testing.T
	c       *cluster
	primary *db.DB
	tls     *tls.Config
	races   map[string]*race.SeedIDs // by label
	files   map[string]string        // the seed files, by label
}

// seedRaceChaos seeds a race for each label: chaosRushRunners signed-in
// runners, an open event of chaosRushPlaces places. The instances have
// not read these races yet: nothing of them is cached.
func seedRaceChaos(t *testing.T, c *cluster, labels ...string) *raceChaos {
	t.Helper()
	ctx := context.Background()
	// tutti's own database handle: it reads the queries' ? placeholders.
	primary, err := db.Open(ctx, "postgres://postgres@127.0.0.1:"+strconv.Itoa(c.port+432)+"/tutti?sslmode=disable", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { primary.Close() })
	rc := &raceChaos{t: t, c: c, primary: primary, tls: clusterTLS(t, c), races: map[string]*race.SeedIDs{}, files: map[string]string{}}
	start := time.Now()
	for i, label := range labels {
		f := filepath.Join(c.state, "seed-data", fmt.Sprintf("race-%d.json", i))
		ids, err := race.Seed(ctx, primary, race.SeedSize{Runners: chaosRushRunners, Places: chaosRushPlaces, Races: 1}, f, nil, uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		rc.races[label], rc.files[label] = ids, f
	}
	t.Logf("race: %d races seeded in %v", len(labels), time.Since(start).Round(time.Millisecond))
	return rc
}

// clusterTLS trusts the cluster's self-signed certificate.
func clusterTLS(t *testing.T, c *cluster) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(filepath.Join(c.state, "nginx", "cert.pem"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	return &tls.Config{RootCAs: roots}
}

// count runs a query that counts on the primary.
func (rc *raceChaos) count(q string, args ...any) int {
	rc.t.Helper()
	var n int
	if err := db.Scan(rc.primary.QueryRow(context.Background(), q, args...), &n); err != nil {
		rc.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// raceRush is one rush under way.
type raceRush struct {
	label   string
	ids     *race.SeedIDs
	wizards []load.Session // runner i's way through the wizard, once let in
	next    atomic.Int64
	mu      sync.Mutex
	runners []*roomRunner // by runner
	done    chan *load.Result
}

// roomRunner is what one runner saw of the waiting room.
type roomRunner struct {
	slot   time.Time // their ticket's slot (room.Ticket.At), zero if none
	slots  int       // tickets with different slots they were given (1: one place in the line)
	visits []roomVisit
}

// roomVisit is one request for the registration (the first) or the room's
// page (the refreshes): when it was sent, when its answer came, and
// whether the turn had come (the answer was the wizard's page).
type roomVisit struct {
	sent, got time.Time
	in        bool
}

// admitted is when the runner's answer that let them in came (zero if none).
func (r *roomRunner) admitted() time.Time {
	for _, v := range r.visits {
		if v.in {
			return v.got
		}
	}
	return time.Time{}
}

// rush starts label's rush: its runners arrive within a second, each
// takes a ticket and follows the room's page until let in, then goes
// through the wizard with short pauses and pays.
func (rc *raceChaos) rush(label string) *raceRush {
	t := rc.t
	t.Helper()
	ids, file := rc.races[label], rc.files[label]
	target, _ := url.Parse(rc.c.https)
	r := &raceRush{label: label, ids: ids, runners: make([]*roomRunner, len(ids.Sessions)), done: make(chan *load.Result, 1)}
	for i := range ids.Sessions {
		// One wizard per runner (from=i): each runner's room visits are
		// made here, with their own session, before the wizard goes on.
		sc, err := race.LoadScenarios()["race-burst"](load.Options{Target: target, SeedFile: file, Params: map[string]string{
			"runners": "1", "from": strconv.Itoa(i), "delay": "0s-200ms", "click": "0s-50ms", "assets": "0"}})
		if err != nil {
			t.Fatal(err)
		}
		r.wizards = append(r.wizards, sc.Sessions[0])
	}
	sc := &load.Scenario{Name: "race-chaos-" + label, Phases: []load.Phase{{Duration: time.Second, Count: len(ids.Sessions)}},
		Sessions: []load.Session{{Name: "register", Weight: 1, Run: r.register}}}
	go func() {
		res, err := load.Run(context.Background(), sc, load.Config{Target: target, Phases: sc.Phases, Timeout: 10 * time.Second,
			Grace: 2 * time.Minute, Seed: 7, TLS: rc.tls})
		if err != nil {
			t.Error(err)
		}
		r.done <- res
	}()
	return r
}

// register is one runner of a rush: the room, then the wizard.
func (r *raceRush) register(ctx context.Context, c *load.Client) error {
	i := int(r.next.Add(1) - 1)
	if i >= len(r.wizards) {
		return fmt.Errorf("rush %s: runner %d of %d", r.label, i, len(r.wizards))
	}
	c.SetCookies([]*http.Cookie{{Name: auth.CookieName, Value: r.ids.Sessions[i]}})
	rr := &roomRunner{}
	r.mu.Lock()
	r.runners[i] = rr
	r.mu.Unlock()
	path := "/race/r/" + r.ids.Race + "/register?event=" + strconv.FormatInt(r.ids.Event, 10)
	for n := 0; ; n++ {
		sent := time.Now()
		p, err := c.Get(ctx, "room", path)
		got := time.Now()
		if err != nil {
			return err
		}
		d, to, waiting := p.Refresh()
		waiting = waiting && strings.HasSuffix(strings.SplitN(to, "?", 2)[0], "/queue")
		r.mu.Lock()
		rr.visits = append(rr.visits, roomVisit{sent: sent, got: got, in: !waiting})
		if slot, ok := ticketSlot(c.Cookies()); ok && !slot.Equal(rr.slot) {
			rr.slot = slot
			rr.slots++
		}
		r.mu.Unlock()
		if !waiting {
			break
		}
		if n > 100 {
			return fmt.Errorf("rush %s: runner %d still in the room after %d looks", r.label, i, n)
		}
		if err := c.Think(ctx, d, d); err != nil {
			return err
		}
		path = to
	}
	return r.wizards[i].Run(ctx, c)
}

// ticketSlot reads the slot of the room's ticket among cookies (its
// fields are plain, signed: internal/room's Encode).
func ticketSlot(cookies []*http.Cookie) (time.Time, bool) {
	for _, c := range cookies {
		if c.Name != "tutti_room" {
			continue
		}
		f := strings.Split(c.Value, ".")
		if len(f) < 6 {
			return time.Time{}, false
		}
		at, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil || at == 0 {
			return time.Time{}, false
		}
		return time.UnixMicro(at), true
	}
	return time.Time{}, false
}

// midRush logs where the rush stands as a part breaks.
func (rc *raceChaos) midRush(r *raceRush, label string) {
	rc.t.Helper()
	r.mu.Lock()
	arrived, waiting := 0, 0
	for _, rr := range r.runners {
		if rr != nil {
			arrived++
			if rr.admitted().IsZero() {
				waiting++
			}
		}
	}
	r.mu.Unlock()
	rc.t.Logf("%s race rush: %d runners arrived, %d waiting in the room; %d registrations, holds paying %d, paid %d, open %d", label,
		arrived, waiting, rc.count(`SELECT count(*) FROM race_registrations WHERE event_id = ?`, r.ids.Event),
		rc.count(`SELECT count(*) FROM race_holds WHERE event_id = ? AND status = 'paying'`, r.ids.Event),
		rc.count(`SELECT count(*) FROM race_holds WHERE event_id = ? AND status = 'paid'`, r.ids.Event),
		rc.count(`SELECT count(*) FROM race_holds WHERE event_id = ? AND status = 'open'`, r.ids.Event))
}

// check waits for the rush's end and its payments' settling, then checks
// the database (racetest.Check: every race's event so far) and the
// room's order (checkOrder, but for what happened during outage).
func (rc *raceChaos) check(r *raceRush, label string, outage span, events []int64) {
	t := rc.t
	t.Helper()
	start := time.Now()
	var res *load.Result
	select {
	case res = <-r.done:
	case <-time.After(3 * time.Minute):
		t.Fatalf("%s: race rush not over in 3 minutes", label)
	}
	if res == nil {
		t.Fatalf("%s: race rush did not run", label)
	}
	racetest.Settle(t, rc.count, 2*time.Minute)
	t.Logf("%s: waited %v for the rush's end and its payments' settling", label, time.Since(start).Round(time.Millisecond))
	regs, paid := racetest.Check(t, rc.count, events...)
	if regs != paid {
		t.Errorf("%s: %d registrations in the rushes' events, %d successful race charges; want them equal", label, regs, paid)
	}
	n := rc.count(`SELECT count(*) FROM race_registrations WHERE event_id = ?`, r.ids.Event)
	soldOut := int(res.Failed["register sold_out"])
	t.Logf("%s: race rush of %d runners: %d registered, %d told sold out, %d sessions failed %v; %d request errors %v",
		label, res.Totals.Sessions, n, soldOut, res.Totals.SessionsFailed, res.Failed, res.Totals.Errors, res.ErrorExamples)
	// No runner lost: each registered, or was told the event sold out once
	// its places were all taken.
	if int(res.Totals.Sessions) != len(r.runners) || int(res.Totals.SessionsFailed) != soldOut || n+soldOut != len(r.runners) {
		t.Errorf("%s: race rush: %d of %d runners ran, %d registered, %d told sold out, failed %v; want each registered or told sold out",
			label, res.Totals.Sessions, len(r.runners), n, soldOut, res.Failed)
	}
	if soldOut > 0 && n != chaosRushPlaces {
		t.Errorf("%s: %d runners told sold out with %d of %d places registered; want the places all taken", label, soldOut, n, chaosRushPlaces)
	}
	waited := 0
	for _, rr := range r.runners {
		if rr != nil && len(rr.visits) > 1 {
			waited++
		}
	}
	t.Logf("%s: %d of %d runners waited in the room", label, waited, len(r.runners))
	if waited == 0 {
		t.Errorf("%s: no runner waited in the room; want a rush larger than the room lets in at once", label)
	}
	checkOrder(t, label, r.runners, outage)
}

// span is a stretch of time; the zero span holds nothing.
type span struct{ from, to time.Time }

// overlaps reports whether s and [from, to] share a moment.
func (s span) overlaps(from, to time.Time) bool {
	return !s.from.IsZero() && !to.Before(s.from) && !from.After(s.to)
}

// checkOrder checks what the waiting room promises (internal/room): one
// line per race, in the order of arrival. A runner whose ticket was
// given before another arrived has a slot no later than theirs; and the
// turns come in the line's order: once a runner was let in, nobody ahead
// of them in the line is sent back to wait. Each runner keeps the one
// place they were given.
//
// While Redis cannot be asked (outage: from its stop until a while after
// its start, the instances' pause after a failure and their reconnection)
// each instance keeps a line of its own: what was asked then is not
// checked across instances, and the test cannot tell which instance
// answered, so not at all. Redis comes back empty, its clock at the wall
// clock, past every slot let in before: turns let in before or during the
// outage still bind the answers after it.
func checkOrder(t *testing.T, label string, runners []*roomRunner, outage span) {
	t.Helper()
	bad, skipped := 0, 0
	fail := func(format string, args ...any) {
		if bad++; bad <= 5 {
			t.Errorf(label+": "+format, args...)
		}
	}
	for i, a := range runners {
		if a == nil || len(a.visits) == 0 {
			continue
		}
		if a.slots != 1 {
			fail("runner %d was given %d places in the line; want one", i, a.slots)
		}
		for j, b := range runners {
			if b == nil || len(b.visits) == 0 || i == j {
				continue
			}
			if outage.overlaps(a.visits[0].sent, a.visits[0].got) || outage.overlaps(b.visits[0].sent, b.visits[0].got) {
				skipped++
			} else if a.visits[0].got.Before(b.visits[0].sent) && a.slot.After(b.slot) {
				fail("runner %d had their ticket before runner %d arrived, and a later slot (%s after)", i, j, a.slot.Sub(b.slot))
			}
			in := b.admitted()
			if in.IsZero() || !a.slot.Before(b.slot) {
				continue
			}
			for _, v := range a.visits {
				if outage.overlaps(v.sent, v.got) {
					continue
				}
				if !v.in && v.sent.After(in) {
					fail("runner %d, ahead in the line (slot %s before), was told to wait %s after runner %d was let in",
						i, b.slot.Sub(a.slot), v.sent.Sub(in).Round(time.Millisecond), j)
					break
				}
			}
		}
	}
	if !outage.from.IsZero() {
		t.Logf("%s: %d ordered pairs of arrivals not compared: one of the two took their ticket while Redis could not be asked", label, skipped)
	}
	if bad > 0 {
		t.Errorf("%s: %d breaches of the room's order", label, bad)
	}
}
