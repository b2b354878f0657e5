package race

import (
	"context"
	crand "crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/module"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/race/results"
	"github.com/tutti-dev/tutti/internal/walltime"
)

// SeedSize is the load tests' data set: a published race open for
// registration now, with an event of Places places, Runners signed-in
// runners to fill it, and a past event with Results results. Extras adds
// teams, a fundraiser and a shirt (a unit for each runner) to the race, so
// that the runners' wizard has those pages too.
type SeedSize struct {
	Runners, Places, Results int
	Extras                   bool
	// Races is how many races in all: the rush's, and Races-1 others run
	// already, each with an event of Results results (0 or 1: the rush's
	// only).
	Races int
}

// SeedDefault is a rehearsal of a thousand runners for a thousand places,
// last year's ten thousand results, and two races run already with ten
// thousand results each; each past event's finishers who are among the
// runners' accounts are registered for it (as many as there are runners).
var SeedDefault = SeedSize{Runners: 1000, Places: 1000, Results: 10000, Races: 3}

// SeedIDs is what the load scenarios need (tutti-data/seed/race.json).
type SeedIDs struct {
	Race         string `json:"race"`          // slug
	Event        int64  `json:"event"`         // open for registration
	ResultsEvent int64  `json:"results_event"` // with published results
	// Sessions are the runners' tutti_session cookies: each simulated
	// runner takes the next one (a runner registers once).
	Sessions []string `json:"sessions"`
}

// Seed creates the data set and writes SeedIDs to idsPath. The runners
// arrive signed in (auth.SeedSessions): their password is SeedPassword.
// Run it while no tutti serves the database, or restart it after: a
// running instance keeps the race's cache version in memory.
func Seed(ctx context.Context, d *db.DB, size SeedSize, idsPath string, progress io.Writer, seed uint64) (*SeedIDs, error) {
	if size.Runners < 1 || size.Places < 1 || size.Results < 0 {
		return nil, errors.New("race: seed: need at least one runner and one place")
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909))
	var bar *progressbar.ProgressBar
	if progress != nil {
		bar = progressbar.NewOptions(2*size.Runners+size.Results*max(size.Races, 1)+1, progressbar.OptionSetWriter(progress),
			progressbar.OptionSetDescription("seeding race"), progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	step := func(n int) {
		if bar != nil {
			bar.Add(n)
		}
	}
	now := time.Now()
	ids, _, err := auth.SeedUsers(ctx, d, size.Runners+1, SeedPassword, now, step)
	if err != nil {
		return nil, fmt.Errorf("race: seed: %w", err)
	}
	director, runners := ids[0], ids[1:]
	if err := d.ResetSequences(ctx, "users"); err != nil {
		return nil, fmt.Errorf("race: seed: %w", err)
	}
	// The race as the director's wizard stores it (the store's own
	// statements), published.
	st := NewStore(d)
	loc, _ := walltime.Location("Europe/Berlin")
	day := now.In(loc).AddDate(0, 2, 0)
	start, _ := walltime.At(day.Year(), day.Month(), day.Day(), 8*60+30, loc)
	r := &Race{Race: races.Race{OwnerID: director, Name: fmt.Sprintf("Rush City Marathon %d", director), Location: "Rush City",
		Date: day.Format(time.DateOnly), TZ: loc.String()}, Currency: "eur",
		Description: "The load tests' race: registration opens with a rush."}
	if err := st.CreateRace(ctx, r, func() string { return fmt.Sprint(rng.Uint32()) }, now); err != nil {
		return nil, fmt.Errorf("race: seed: %w", err)
	}
	out := &SeedIDs{Race: r.Slug}
	// Last year's 10K: closed, with the results.
	past := &Event{RaceID: r.ID, Name: "10K", StartsAt: start.AddDate(-1, 0, 0), OpensAt: now.AddDate(-1, -2, 0),
		ClosesAt: start.AddDate(-1, 0, -1), Price: 2500, Cap: max(size.Results, 1)}
	err = d.WithTx(ctx, func(tx *db.Tx) error {
		open := &Event{RaceID: r.ID, Name: "Marathon", StartsAt: start, OpensAt: now.Add(-time.Minute),
			ClosesAt: now.AddDate(0, 1, 0), Price: 4500, Cap: size.Places}
		for _, e := range []*Event{open, past} {
			if err := st.AddEvent(ctx, tx, e, now); err != nil {
				return err
			}
		}
		out.Event, out.ResultsEvent = open.ID, past.ID
		if err := st.UpdateText(ctx, tx, r.ID, "Start and finish at the town hall.", "I accept the risks of taking part."); err != nil {
			return err
		}
		if size.Extras {
			if err := st.SetExtras(ctx, tx, r.ID, ExtrasInput{Teams: true, Fundraiser: "Rush City Food Bank"}); err != nil {
				return err
			}
			if err := st.AddItem(ctx, tx, r.ID, Item{Name: "Race shirt", Price: 2000, Stock: size.Runners}, now); err != nil {
				return err
			}
		}
		return st.Publish(ctx, tx, r.ID, now)
	})
	if err != nil {
		return nil, fmt.Errorf("race: seed: %w", err)
	}
	step(1)
	if out.Sessions, err = auth.SeedSessions(ctx, d, runners, now); err != nil {
		return nil, fmt.Errorf("race: seed: %w", err)
	}
	step(len(runners))
	if err := seedPast(ctx, d, past, runners, size.Results, rng, now); err != nil {
		return nil, err
	}
	step(size.Results)
	for k := 1; k < size.Races; k++ {
		if err := seedPastRace(ctx, d, st, director, k, runners, size.Results, rng, now); err != nil {
			return nil, err
		}
		step(size.Results)
	}
	if idsPath != "" {
		if err := load.WriteSeedFile(idsPath, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// seedPast gives past event e n made-up results, and registrations at its
// price for as many of its finishers as there are runners.
func seedPast(ctx context.Context, d *db.DB, e *Event, runners []int64, n int, rng *rand.Rand, now time.Time) error {
	if n <= 0 {
		return nil
	}
	rs, err := results.MadeUp(n, rng)
	if err != nil {
		return err
	}
	if err := results.SeedRows(ctx, d, e.RaceID, e.ID, rs); err != nil {
		return fmt.Errorf("race: seed: %w", err)
	}
	if err := seedRegistrations(ctx, d, e.RaceID, e.ID, runners, rs, e.Price, now.AddDate(-1, 0, 0)); err != nil {
		return fmt.Errorf("race: seed: %w", err)
	}
	return nil
}

// seedPastRaces are the names of the races run already.
var seedPastRaces = []string{"Harbour Night Run", "Old Town Half", "Riverside 10K", "Forest Trail 25K"}

// seedPastRace makes the k-th race run already: published, one event a
// month ago with n results and their registrations.
func seedPastRace(ctx context.Context, d *db.DB, st *Store, director int64, k int, runners []int64, n int, rng *rand.Rand, now time.Time) error {
	loc, _ := walltime.Location("Europe/Berlin")
	day := now.In(loc).AddDate(0, -k, 0)
	start, _ := walltime.At(day.Year(), day.Month(), day.Day(), 9*60, loc)
	r := &Race{Race: races.Race{OwnerID: director, Name: fmt.Sprintf("%s %d", seedPastRaces[(k-1)%len(seedPastRaces)], director), Location: "Rush City",
		Date: day.Format(time.DateOnly), TZ: loc.String()}, Currency: "eur", Description: "A race run already, with its results."}
	if err := st.CreateRace(ctx, r, func() string { return fmt.Sprint(rng.Uint32()) }, now); err != nil {
		return fmt.Errorf("race: seed: %w", err)
	}
	e := &Event{RaceID: r.ID, Name: "Main race", StartsAt: start, OpensAt: start.AddDate(0, -3, 0), ClosesAt: start.AddDate(0, 0, -1),
		Price: 3000, Cap: max(n, 1)}
	err := d.WithTx(ctx, func(tx *db.Tx) error {
		if err := st.AddEvent(ctx, tx, e, now); err != nil {
			return err
		}
		if err := st.UpdateText(ctx, tx, r.ID, "Start and finish at the harbour.", "I accept the risks of taking part."); err != nil {
			return err
		}
		return st.Publish(ctx, tx, r.ID, now)
	})
	if err != nil {
		return fmt.Errorf("race: seed: %w", err)
	}
	return seedPast(ctx, d, e, runners, n, rng, now)
}

// SeedPassword is every seeded account's password.
const SeedPassword = "race-load-test"

// LoadSeedIDs reads what Seed wrote.
func LoadSeedIDs(path string) (*SeedIDs, error) {
	var ids SeedIDs
	if err := load.ReadSeedFile(path, "race", &ids); err != nil {
		return nil, err
	}
	if ids.Race == "" || ids.Event == 0 {
		return nil, fmt.Errorf("race: seed ids %s have no race", path)
	}
	return &ids, nil
}

func seedFlags(fs *flag.FlagSet) (func() error, module.SeedFunc) {
	size := SeedDefault
	fs.IntVar(&size.Runners, "runners", size.Runners, "runners, signed in, each to register once")
	places := fs.Int("places", 0, "places in the open event (default: as many as runners)")
	fs.IntVar(&size.Results, "results", size.Results, "results of last year's 10K")
	fs.BoolVar(&size.Extras, "extras", false, "teams, a fundraiser and a store item: the wizard's extras pages too")
	fs.IntVar(&size.Races, "races", size.Races, "races in all: the rush's and others run already, each with --results results and their registrations")
	check := func() error {
		if size.Runners < 1 || *places < 0 || size.Results < 0 || size.Results > results.MaxRows || size.Races < 0 || size.Races > 20 {
			return fmt.Errorf("need at least one runner, 0 to %d results and 0 to 20 races", results.MaxRows)
		}
		return nil
	}
	return check, func(ctx context.Context, d *db.DB, run module.SeedRun) (string, error) {
		start := time.Now()
		size.Places = *places
		if size.Places == 0 {
			size.Places = size.Runners
		}
		ids, err := Seed(ctx, d, size, run.Out, run.Progress, run.RNGSeed)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("seeded race in %.1f s: /race/r/%s, event %d with %d places, %d signed-in runners, %d results (event %d), %d races in all; ids in %s",
			time.Since(start).Seconds(), ids.Race, ids.Event, size.Places, len(ids.Sessions), size.Results, ids.ResultsEvent, max(size.Races, 1), run.Out), nil
	}
}

// seedRegistrations stores a confirmed registration, and its hold done, for
// each of rs's finishers, as many as there are users (one each), with the
// finisher's bib and name, paid amount each: last year's entrants, as the
// writer would have stored them. The race's next bib moves past the
// highest.
func seedRegistrations(ctx context.Context, d *db.DB, raceID, eventID int64, users []int64, rs []results.Result, amount int64, at time.Time) error {
	n := min(len(users), len(rs))
	if n == 0 {
		return nil
	}
	holds, regs := make([][]any, n), make([][]any, n)
	top := 0
	for i, r := range rs[:n] {
		first, last, _ := strings.Cut(r.Name, " ")
		id, email, birth := crand.Text(), fmt.Sprintf("runner%d@seed.tutti.test", users[i]), fmt.Sprintf("%d-06-15", at.Year()-r.Age)
		payment := "seed-" + id
		holds[i] = []any{id, eventID, raceID, users[i], string(checkout.Done), at.UnixMilli(), first, last, email, birth, r.Gender, r.City,
			seedEmergency, stepWaiver, at.UnixMilli(), amount, payment, at.UnixMilli(), at.UnixMilli()}
		regs[i] = []any{id, raceID, eventID, users[i], r.Bib, first, last, NameKey(first + " " + last), email, birth,
			r.Gender, r.City, seedEmergency, amount, payment, "confirmed", at.UnixMilli()}
		top = max(top, r.Bib)
	}
	if err := d.CopyFrom(ctx, "race_holds", []string{"id", "event_id", "race_id", "user_id", "status", "expires_at", "first_name",
		"last_name", "email", "birth_date", "gender", "city", "emergency", "step", "waiver_at", "amount", "payment_id", "paid_at",
		"created_at"}, holds); err != nil {
		return fmt.Errorf("race: seed holds: %w", err)
	}
	if err := d.CopyFrom(ctx, "race_registrations", []string{"hold_id", "race_id", "event_id", "user_id", "bib", "first_name",
		"last_name", "name_key", "email", "birth_date", "gender", "city", "emergency", "amount", "payment_id", "status",
		"created_at"}, regs); err != nil {
		return fmt.Errorf("race: seed registrations: %w", err)
	}
	return d.WithTx(ctx, func(tx *db.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE race_events SET confirmed = confirmed + ?, taken = taken + ? WHERE id = ?`, n, n, eventID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE race_races SET next_bib = CASE WHEN next_bib > ? THEN next_bib ELSE ? END,
			version = version + 1 WHERE id = ?`, top, top+1, raceID)
		return err
	})
}

const seedEmergency = "A friend, 555 0100"
