package race

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/race/races"
)

// LoadScenarios are race's scenarios by name.
func LoadScenarios() map[string]load.Factory {
	return map[string]load.Factory{
		"race-burst":    burstScenario,
		"race-capacity": capacityScenario,
		"race-results":  resultsScenario,
	}
}

// burstScenario is the seed's table 2: N runners all starting within 30 s,
// each a full wizard run with 15-60 s of form filling a page.
func burstScenario(opts load.Options) (*load.Scenario, error) {
	sc := &load.Scenario{Name: "race-burst",
		Description: "the opening rush: N full registrations starting within 30 s, 15-60 s a page [opts: runners=1000, within=30s, delay=15s-60s, click=5s-30s, assets=1, from=0]"}
	if opts.Target == nil {
		return sc, nil
	}
	w, err := newWizard(opts, "15s-60s", "5s-30s", true)
	if err != nil {
		return nil, err
	}
	runners, err := opts.Int("runners", 1000, 1)
	if err != nil {
		return nil, err
	}
	within, err := opts.Duration("within", 30*time.Second)
	if err != nil {
		return nil, err
	}
	return w.rush(sc, runners, within), nil
}

// rush makes sc the opening rush of runners wizard runs arriving at
// random within within: its one phase, its session, and its grace for the
// slowest runner (every page at the longest delay, and the waiting page's
// checks). The burst scenario and the console's rehearsals run it.
func (w *wizard) rush(sc *load.Scenario, runners int, within time.Duration) *load.Scenario {
	sc.Phases = []load.Phase{{Duration: within, Count: runners}}
	sc.Sessions = []load.Session{{Name: "register", Weight: 1, Run: w.register}}
	sc.Grace = time.Duration(wizardPages)*(w.delay[1]+w.click[1]) + 3*time.Minute
	return sc
}

// capacityScenario is the same wizard with no think time, at arrival rates
// raised phase by phase: how many registrations a second the site sustains.
func capacityScenario(opts load.Options) (*load.Scenario, error) {
	sc := &load.Scenario{Name: "race-capacity",
		Description: "registrations with no think time at 100 to 700 new runners/s, 20 s a phase [opts: delay=0s-0s, assets=0, from=0]"}
	sc.Phases = load.Rates(20*time.Second, 100, 200, 300, 400, 500, 600, 700)
	if opts.Target == nil {
		return sc, nil
	}
	w, err := newWizard(opts, "0s-0s", "0s-0s", false)
	if err != nil {
		return nil, err
	}
	sc.Sessions = []load.Session{{Name: "register", Weight: 1, Run: w.register}}
	sc.Grace = 30 * time.Second
	return sc, nil
}

// wizardPages is how many pages a runner thinks on: the event, details,
// waiver, review and payment.
const wizardPages = 5

// wizard is a runner's way through registration.
type wizard struct {
	ids          *SeedIDs
	event        int64
	events       []int64 // if any: each runner picks one of these at random
	delay, click [2]time.Duration
	assets       bool
	domain       string       // the runners' e-mail domain ("": the seed's)
	next         atomic.Int64 // the next runner's session
}

// newWizard reads the wizard's options: the think times' ranges (delay,
// click: defaults given), assets=0 or 1 (default given), from and event.
func newWizard(opts load.Options, delay, click string, assets bool) (*wizard, error) {
	ids, err := LoadSeedIDs(opts.SeedFile)
	if err != nil {
		return nil, err
	}
	if assets, err = opts.Bool("assets", assets); err != nil {
		return nil, fmt.Errorf("race: %w", err)
	}
	w := &wizard{ids: ids, assets: assets}
	if w.delay, err = opts.Range("delay", delay); err != nil {
		return nil, fmt.Errorf("race: %w", err)
	}
	if w.click, err = opts.Range("click", click); err != nil {
		return nil, fmt.Errorf("race: %w", err)
	}
	from, err := opts.Int("from", 0, 0)
	if err != nil {
		return nil, fmt.Errorf("race: %w", err)
	}
	if from >= len(ids.Sessions) {
		return nil, fmt.Errorf("race: option from=%d: the seed file has %d runners (tutti seed race --runners N)", from, len(ids.Sessions))
	}
	w.next.Store(int64(from))
	event, err := opts.Int("event", int(ids.Event), 1)
	if err != nil {
		return nil, fmt.Errorf("race: %w", err)
	}
	w.event = int64(event)
	return w, nil
}

// errNoRunners: the run wants more runners than were seeded.
var errNoRunners = &loadOutcome{"no_runner", "every seeded runner has had a turn (seed more: tutti seed race --runners N)"}

// loadOutcome is how a runner's visit ended other than registered; the
// report counts them (load.Outcome).
type loadOutcome struct{ outcome, msg string }

func (e *loadOutcome) Error() string   { return "race: " + e.msg }
func (e *loadOutcome) Outcome() string { return e.outcome }

// The outcomes of a runner who found what they chose sold out: the
// event's places, or a store item.
const (
	outcomeSoldOut      = races.OutcomeSoldOut
	outcomeExtraSoldOut = races.OutcomeExtraSoldOut
)

// endedAt is a visit that ended on page p: the sold-out page, or another
// page than the confirmation.
func endedAt(p *load.Page) error {
	if strings.Contains(p.URL.Path, "/sold-out") {
		return &loadOutcome{outcomeSoldOut, "sold out at " + p.URL.Path}
	}
	return &loadOutcome{"not_registered", "registration ended at " + p.URL.RequestURI()}
}

// register is one runner: the race page, the sign-up link, then each page
// of the wizard with its think time, payment, the waiting page as the
// browser follows it, and the confirmation with a bib.
func (w *wizard) register(ctx context.Context, c *load.Client) error {
	i := w.next.Add(1) - 1
	if i >= int64(len(w.ids.Sessions)) {
		return errNoRunners
	}
	c.SetCookies([]*http.Cookie{{Name: auth.CookieName, Value: w.ids.Sessions[i]}})
	race := raceURL(w.ids.Race)
	event, domain := w.event, cmp.Or(w.domain, "seed.tutti.test")
	if len(w.events) > 0 {
		event = w.events[c.Intn(len(w.events))]
	}
	p, err := c.Get(ctx, "race_page", race)
	if err != nil {
		return err
	}
	if w.assets {
		if err := c.Assets(ctx, "asset", p); err != nil {
			return err
		}
	}
	if err := c.Think(ctx, w.click[0], w.click[1]); err != nil {
		return err
	}
	if p, err = c.Get(ctx, "event_page", race+"/register?event="+strconv.FormatInt(event, 10)); err != nil {
		return err
	}
	// The waiting room, as the browser follows its Refresh until the turn
	// comes and it goes on to the event page.
	if p, err = follow(ctx, c, p, "queue", 200); err != nil {
		return err
	}
	steps := []struct {
		name, form string
		fill       func(f *load.Form)
		extra      bool // a page of the race's extras: there only if it offers them
	}{
		{"hold", "/register", func(f *load.Form) { f.Set("event", strconv.FormatInt(event, 10)) }, false},
		{"details", "/details", func(f *load.Form) {
			f.Set("first_name", "Runner")
			f.Set("last_name", strconv.FormatInt(i, 10))
			f.Set("email", fmt.Sprintf("runner%d@%s", i, domain))
			f.Set("birth_date", "1990-05-17")
			f.Set("gender", Genders[i%int64(len(Genders))].Value)
			f.Set("city", "Rush City")
			f.Set("emergency", "A friend, 555 0100")
			f.Set("shirt", ShirtSizes[i%int64(len(ShirtSizes))]) // read only where the race gives shirts
		}, false},
		{"team", "/team", func(f *load.Form) {
			if i%2 == 0 {
				f.Set("team", "Rush team "+strconv.FormatInt(i%100, 10))
			}
		}, true},
		{"donation", "/donation", func(f *load.Form) {
			if i%4 == 0 {
				f.Set("amount", "1000")
			}
		}, true},
		{"store", "/store", func(f *load.Form) { // one unit of an item, for every third runner
			for k := range f.Values {
				if strings.HasPrefix(k, "qty-") && i%3 == 0 {
					f.Set(k, "1")
					break
				}
			}
		}, true},
		{"waiver", "/waiver", func(f *load.Form) { f.Set("accept", "yes") }, false},
	}
	for _, s := range steps {
		f, err := p.Form(s.form)
		if err != nil && s.extra {
			continue
		}
		if err != nil {
			return endedAt(p)
		}
		s.fill(f)
		if err := c.Think(ctx, w.delay[0], w.delay[1]); err != nil {
			return err
		}
		if p, err = c.Submit(ctx, s.name, f); err != nil {
			// The store refuses an item sold out since its page was read:
			// the runner's outcome, like an event sold out, not the site's.
			if se := (*load.StatusError)(nil); s.name == "store" && errors.As(err, &se) && se.Status == http.StatusUnprocessableEntity {
				return &loadOutcome{outcomeExtraSoldOut, "an item sold out at " + se.URL}
			}
			return err
		}
	}
	link, err := p.Link("/pay")
	if err != nil {
		return endedAt(p)
	}
	if err := c.Think(ctx, w.delay[0], w.delay[1]); err != nil {
		return err
	}
	if p, err = c.Get(ctx, "pay_page", link); err != nil {
		return err
	}
	f, err := p.Form("/pay")
	if err != nil {
		return endedAt(p)
	}
	f.Set("card", "4242 4242 4242 4242")
	if err := c.Think(ctx, w.delay[0], w.delay[1]); err != nil {
		return err
	}
	if p, err = c.Submit(ctx, "pay", f); err != nil {
		return err
	}
	// The waiting page refreshes itself after 10 s, 20 s, 40 s, then every
	// minute, as the browser does.
	if p, err = follow(ctx, c, p, "wait", 20); err != nil {
		return err
	}
	if !strings.HasSuffix(p.URL.Path, "/done") || !p.Contains(`class="bib"`) || p.URL.Query().Get("already") != "" {
		return endedAt(p)
	}
	return nil
}

// follow refreshes a page that is /name's (its path ends in /name, or it
// refreshes itself there: the room's page at the wizard's first address)
// as its Refresh header says, as a browser does, at most limit times, and
// returns the page it leads to.
func follow(ctx context.Context, c *load.Client, p *load.Page, name string, limit int) (*load.Page, error) {
	for n := 0; ; n++ {
		d, to, ok := p.Refresh()
		if !strings.HasSuffix(p.URL.Path, "/"+name) && !(ok && refreshesTo(to, name)) {
			return p, nil
		}
		if !ok || n > limit {
			return nil, endedAt(p)
		}
		if err := c.Think(ctx, d, d); err != nil {
			return nil, err
		}
		var err error
		if p, err = c.Get(ctx, name, to); err != nil {
			return nil, err
		}
	}
}

// refreshesTo reports whether the address to is /name's.
func refreshesTo(to, name string) bool {
	u, err := url.Parse(to)
	return err == nil && strings.HasSuffix(u.Path, "/"+name)
}
