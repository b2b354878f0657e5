package race

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/text"
)

// A load rehearsal is a director's rehearsal of the opening rush, run
// from the race's admin pages with the same engine and the same runner as
// `tutti load run --scenario race-burst`: simulated runners, each a full
// wizard run with its think times, paying with a test card.
//
// Safety first: it runs against a copy of the race made for it (its
// events open now, the same places, prices and extras; never listed; a
// banner on its pages), never the race itself, so no real runner meets a
// place taken by a simulated one; its runners are accounts made for it
// with addresses in the reserved .invalid domain (their mail is dropped);
// it pays only through a gateway that moves no money; and each of its
// registrations is cancelled and refunded RefundDelay after it was made,
// by the sweeper of whichever instance is up. One rehearsal runs at a time
// on a site, from the instance that started it, against itself over
// loopback; it writes its gauges to the database every second, so any
// instance shows them, and the report when it ends.

// Bounds of a rehearsal's settings.
const (
	MaxRehearsalRunners = 50_000
	maxRehearsalDelay   = 600           // s, a page's think time and the initial spread
	maxRefundDelay      = 7 * 24 * 3600 // s
	// rehearsalAbandoned is how long without a heartbeat before a
	// rehearsal under way counts as dead with its instance.
	rehearsalAbandoned = 2 * time.Minute
	// rehearsalDomain is its runners' e-mail domain (mail.Undeliverable).
	rehearsalDomain = "rehearsal.tutti.invalid"
	// rehearsalKeep is how long a rehearsal's copy and runners stay after
	// it ended (and its registrations were refunded), for the director to
	// look at, before the sweep removes them.
	rehearsalKeep = time.Hour
)

// rehearsalPrefix begins the usernames and addresses of rehearsal id's
// runners ("rh12r": no other rehearsal's begins so).
func rehearsalPrefix(id int64) string { return "rh" + strconv.FormatInt(id, 10) + "r" }

var commentField = text.Field{Name: "The comment", Max: 2000, Multiline: true}

// RehearsalSettings are what a director asks of a rehearsal; times in
// seconds.
type RehearsalSettings struct {
	Event       int64 `json:"event"` // the event rehearsed; 0: a random event for each runner
	Runners     int   `json:"runners"`
	PageMin     int   `json:"page_min_s"`  // think time on each page of the wizard
	PageMax     int   `json:"page_max_s"`  //
	Within      int   `json:"within_s"`    // the greatest initial delay: runners arrive at random within it
	ClickMin    int   `json:"click_min_s"` // from the race page to clicking its sign-up link
	ClickMax    int   `json:"click_max_s"` //
	RefundDelay int   `json:"refund_delay_s"`
	Assets      bool  `json:"assets"` // runners fetch the pages' style sheets and scripts
}

// DefaultRehearsal is the form's first values: a small rush.
var DefaultRehearsal = RehearsalSettings{Runners: 200, PageMin: 2, PageMax: 10, Within: 30, ClickMin: 1, ClickMax: 5, RefundDelay: 60, Assets: true}

// RehearsalInput is the rehearsal form as typed.
type RehearsalInput struct {
	Event, Runners, PageMin, PageMax, Within, ClickMin, ClickMax, RefundDelay string
	Assets                                                                    bool
}

// Input is s as the form shows it.
func (s RehearsalSettings) Input() RehearsalInput {
	i := strconv.Itoa
	return RehearsalInput{Event: strconv.FormatInt(s.Event, 10), Runners: i(s.Runners), PageMin: i(s.PageMin), PageMax: i(s.PageMax),
		Within: i(s.Within), ClickMin: i(s.ClickMin), ClickMax: i(s.ClickMax), RefundDelay: i(s.RefundDelay), Assets: s.Assets}
}

// Validate checks the form against race r's events to come at now;
// errors by field.
func (in RehearsalInput) Validate(r *Race, now time.Time) (RehearsalSettings, map[string]string) {
	f := map[string]string{}
	num := func(field, v string, least, most int) int {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < least || n > most {
			f[field] = fmt.Sprintf("A whole number from %d to %d.", least, most)
		}
		return n
	}
	s := RehearsalSettings{Assets: in.Assets}
	s.Runners = num("runners", in.Runners, 1, MaxRehearsalRunners)
	s.PageMin = num("page_min", in.PageMin, 0, maxRehearsalDelay)
	s.PageMax = num("page_max", in.PageMax, 0, maxRehearsalDelay)
	s.Within = num("within", in.Within, 1, maxRehearsalDelay)
	s.ClickMin = num("click_min", in.ClickMin, 0, maxRehearsalDelay)
	s.ClickMax = num("click_max", in.ClickMax, 0, maxRehearsalDelay)
	s.RefundDelay = num("refund_delay", in.RefundDelay, 0, maxRefundDelay)
	if f["page_min"] == "" && f["page_max"] == "" && s.PageMax < s.PageMin {
		f["page_max"] = "At least the shortest."
	}
	if f["click_min"] == "" && f["click_max"] == "" && s.ClickMax < s.ClickMin {
		f["click_max"] = "At least the shortest."
	}
	upcoming := r.Upcoming(now)
	if ev, err := strconv.ParseInt(strings.TrimSpace(in.Event), 10, 64); err != nil {
		f["event"] = "Choose an event."
	} else if e, ok := r.Event(ev); ev != 0 && (!ok || !e.StartsAt.After(now)) {
		f["event"] = "Choose an event of this race that has not started."
	} else {
		s.Event = ev
	}
	switch {
	case r.RehearsalOf != 0:
		f["event"] = "This is a rehearsal's copy: rehearse the race itself."
	case len(upcoming) == 0:
		f["event"] = "The race has no event to come to rehearse."
	}
	return s, f
}

// Rehearsal is one rehearsal as stored.
type Rehearsal struct {
	ID, RaceID, CopyID, CreatedBy int64
	CreatedAt, HeartbeatAt        time.Time
	FinishedAt                    *time.Time
	Settings                      RehearsalSettings
	Status                        string // preparing, running, stopping, done, failed
	Progress                      RehearsalProgress
	HasReport                     bool
	Error, Comment                string
	// Made and Refunded are the copy's registrations, kept when the copy
	// went (CopyID 0 then); CleanedAt is when the last of its runners'
	// accounts went.
	Made, Refunded int
	CleanedAt      *time.Time
}

// Live reports whether the rehearsal is under way at now.
func (rh *Rehearsal) Live(now time.Time) bool {
	switch rh.Status {
	case "preparing", "running", "stopping":
		return now.Sub(rh.HeartbeatAt) < rehearsalAbandoned
	}
	return false
}

// RehearsalProgress are the live gauges, as the running instance last
// wrote them.
type RehearsalProgress struct {
	Stage      string  `json:"stage"`     // what it is doing: accounts, copy, running, finishing, ended
	Elapsed    float64 `json:"elapsed_s"` // since the first runner's arrival
	Arrived    int64   `json:"arrived"`
	Active     int64   `json:"active"` // runners in the wizard now
	Registered int64   `json:"registered"`
	Failed     int64   `json:"failed"` // runners whose visit ended otherwise (sold out, errors)
	Requests   int64   `json:"requests"`
	Errors     int64   `json:"errors"`
	PerSecond  float64 `json:"requests_per_s"` // in the last second
	Percent    int     `json:"percent"`        // runners done of all
}

// Label says the stage as the director reads it.
func (p RehearsalProgress) Label() string {
	switch p.Stage {
	case "accounts":
		return "making the runners' accounts"
	case "copy":
		return "copying the race"
	case "running":
		return "runners registering"
	case "finishing":
		return "the last runners finishing"
	case "ended":
		return "ended"
	}
	return "starting"
}

// RehearsalReport is a stored report as the page shows it.
type RehearsalReport struct {
	*load.Result
	Runners, Registered, NotRegistered int64
	SoldOut                            int64   // runners who found their place or an item sold out: their outcome, not a failure
	SuccessRate                        float64 // registered of the runners who could register, %; NaN when nobody registered
	PeakRequests                       int64   // requests in the busiest second
	PerHour                            float64 // estimated hourly registrations
	Span                               float64 // s, first arrival to last registration
}

// readReport decodes a stored report.
func readReport(js string) (*RehearsalReport, error) {
	var res load.Result
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		return nil, fmt.Errorf("race: rehearsal report: %w", err)
	}
	return summarize(&res), nil
}

// summarize is a run's report with the figures the page shows.
func summarize(res *load.Result) *RehearsalReport {
	rep := &RehearsalReport{Result: res}
	for _, s := range res.Sessions {
		if s.Name == "register" {
			// A session Stat counts the ones that ended well, and the
			// others as its errors.
			rep.Registered, rep.NotRegistered = s.Count, s.Errors
			rep.Runners = s.Count + s.Errors
			rep.PerHour, rep.Span = s.PerHour, s.SpanSeconds
		}
	}
	for kind, n := range res.Failed {
		switch strings.TrimPrefix(kind, "register ") {
		case outcomeSoldOut, outcomeExtraSoldOut:
			rep.SoldOut += n
		}
	}
	rep.SuccessRate = math.NaN()
	if could := rep.Runners - rep.SoldOut; rep.Registered > 0 && could > 0 {
		rep.SuccessRate = 100 * float64(rep.Registered) / float64(could)
	}
	rep.PeakRequests = res.PeakRequests()
	return rep
}

// Upcoming are r's events that have not started at now.
func (r *Race) Upcoming(now time.Time) []Event {
	var out []Event
	for _, e := range r.Events {
		if e.StartsAt.After(now) {
			out = append(out, e)
		}
	}
	return out
}

// SelfURL is the loopback URL at which an instance listening on addr
// reaches itself; an error if it does not listen on loopback.
func SelfURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	switch ip := net.ParseIP(host); {
	case host == "" || ip != nil && ip.IsUnspecified():
		host = "127.0.0.1"
	case host == "localhost" || ip != nil && ip.IsLoopback():
	default:
		return "", fmt.Errorf("it listens on %s, not on loopback", addr)
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

// Rehearsals are d's race's rehearsals, newest first.
func (s *Service) Rehearsals(ctx context.Context, d *Directing) ([]*Rehearsal, error) {
	return s.store.Rehearsals(ctx, d.Race.ID, 50)
}

// Rehearsal is rehearsal id of d's race.
func (s *Service) Rehearsal(ctx context.Context, d *Directing, id int64) (*Rehearsal, error) {
	rh, err := s.store.Rehearsal(ctx, d.Race.ID, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, errs.E(errs.NotFound, "There is no such rehearsal.")
	}
	return rh, err
}

// RehearsalReport is rh's report; nil before it has one.
func (s *Service) RehearsalReport(ctx context.Context, rh *Rehearsal) (*RehearsalReport, error) {
	if !rh.HasReport {
		return nil, nil
	}
	js, err := s.store.RehearsalReport(ctx, rh.ID)
	if err != nil {
		return nil, err
	}
	return readReport(js)
}

// RehearsalRefunds are how many registrations rehearsal rh made, and how
// many of them are refunded.
func (s *Service) RehearsalRefunds(ctx context.Context, rh *Rehearsal) (made, refunded int, err error) {
	if rh.CopyID == 0 {
		return rh.Made, rh.Refunded, nil
	}
	return s.store.RehearsalCounts(ctx, s.db, rh.CopyID)
}

// CommentRehearsal stores the director's comment on rehearsal id.
func (s *Service) CommentRehearsal(ctx context.Context, d *Directing, id int64, comment string) error {
	comment, msg := commentField.Clean(comment)
	if msg != "" {
		return errs.Fields(map[string]string{"comment": msg})
	}
	err := s.store.SetRehearsalComment(ctx, d.Race.ID, id, comment)
	if errors.Is(err, errs.ErrNotFound) {
		return errs.E(errs.NotFound, "There is no such rehearsal.")
	}
	return err
}

// StopRehearsal asks the instance running rehearsal id to stop it: its
// runners stop, the report covers what they did.
func (s *Service) StopRehearsal(ctx context.Context, d *Directing, id int64) error {
	return s.store.StopRehearsal(ctx, d.Race.ID, id)
}

// StartRehearsal stores a rehearsal of d's race with the settings typed
// and starts it on this instance: it makes the runners' accounts and the
// copy of the race, then runs them, in the background.
func (s *Service) StartRehearsal(ctx context.Context, d *Directing, in RehearsalInput) (*Rehearsal, error) {
	set, f := in.Validate(d.Race, s.now())
	if len(f) > 0 {
		return nil, errs.Fields(f)
	}
	if s.jobs == nil {
		return nil, errs.E(errs.Conflict, "This site has no background jobs to refund a rehearsal's registrations with, so it cannot run one.")
	}
	if !s.pay.MovesNoMoney() {
		return nil, errs.E(errs.Conflict, "Rehearsals pay with test cards, and this site's payment gateway (%s) moves real money: rehearse on a site set up with a test gateway.", s.pay.Name())
	}
	addr := ""
	if s.listening != nil {
		addr = s.listening()
	}
	self, err := SelfURL(addr)
	if err != nil {
		return nil, errs.E(errs.Conflict, "This instance cannot reach itself over loopback (%v), so it cannot run a rehearsal.", err)
	}
	now := s.now()
	rh := &Rehearsal{RaceID: d.Race.ID, CreatedBy: d.User.ID, CreatedAt: now, Settings: set, Status: "preparing", HeartbeatAt: now}
	if err := s.store.AddRehearsal(ctx, rh, now.Add(-rehearsalAbandoned)); err != nil {
		return nil, err
	}
	src := *d.Race
	s.rehearsals.Add(1)
	go func() {
		defer s.rehearsals.Done()
		s.rehearse(rh, &src, d.User.ID, self)
	}()
	return rh, nil
}

// rehearse runs rehearsal rh of race src to its end and stores the report
// (or what went wrong).
func (s *Service) rehearse(rh *Rehearsal, src *Race, director int64, self string) {
	ctx, cancel := context.WithCancel(s.bg)
	defer cancel()
	p := RehearsalProgress{Stage: "accounts"}
	beat := func(status string, report, failure string) (string, error) {
		bctx, c := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer c()
		return s.store.RehearsalBeat(db.Uncounted(bctx), rh.ID, status, p, report, failure, s.now())
	}
	fail := func(err error) {
		s.log.Error("race: rehearsal failed", "rehearsal", rh.ID, "err", err)
		p.Stage = "ended"
		if _, berr := beat("failed", "", err.Error()); berr != nil {
			s.log.Error("race: rehearsal's end not stored", "rehearsal", rh.ID, "err", berr)
		}
	}
	set := rh.Settings
	now := s.now()
	ids, err := auth.PlaceholderUsers(ctx, s.db, rehearsalPrefix(rh.ID), rehearsalDomain, set.Runners, now)
	if err != nil {
		fail(err)
		return
	}
	tokens, err := auth.SeedSessions(ctx, s.db, ids, now)
	if err != nil {
		fail(err)
		return
	}
	p.Stage = "copy"
	if st, err := beat("preparing", "", ""); err != nil || st == "stopping" {
		fail(cmp.Or(err, errors.New("stopped by a director before it began")))
		return
	}
	sec := func(n int) time.Duration { return time.Duration(n) * time.Second }
	w := &wizard{assets: set.Assets, domain: rehearsalDomain,
		delay: [2]time.Duration{sec(set.PageMin), sec(set.PageMax)}, click: [2]time.Duration{sec(set.ClickMin), sec(set.ClickMax)}}
	sc := w.rush(&load.Scenario{Name: "race-rehearsal", Description: "a director's rehearsal of the opening rush"}, set.Runners, sec(set.Within))
	phase := sc.Phases[0].Duration
	now = s.now()
	var cp *Race
	var copied map[int64]int64
	err = s.db.WithTx(ctx, func(tx *db.Tx) error {
		var err error
		cp, copied, err = s.store.CopyRace(ctx, tx, src, rh.ID, director, now.Add(-time.Minute), now.Add(phase+sc.Grace+time.Hour), now)
		return err
	})
	if err != nil {
		fail(err)
		return
	}
	w.ids = &SeedIDs{Race: cp.Slug, Sessions: tokens}
	for _, e := range src.Events {
		id, ok := copied[e.ID]
		switch {
		case !ok:
		case e.ID == set.Event:
			w.event = id
		case set.Event == 0:
			w.events = append(w.events, id)
		}
	}
	if w.event == 0 && len(w.events) == 0 {
		fail(errors.New("the event rehearsed has started since"))
		return
	}
	target, err := url.Parse(self)
	if err != nil {
		fail(err)
		return
	}
	p.Stage = "running"
	var last int64
	var stopped bool
	res, err := load.Run(ctx, sc, load.Config{Target: target, Phases: sc.Phases, Seed: rand.Uint64(), Progress: func(lp load.Progress) {
		p.Elapsed = lp.Elapsed.Seconds()
		p.Arrived, p.Active, p.Registered, p.Failed = lp.Arrivals, lp.Active, lp.Succeeded, lp.Failed
		p.Requests, p.Errors, p.PerSecond = lp.Requests, lp.Errors, float64(lp.Requests-last)
		last = lp.Requests
		p.Percent = int(100 * (lp.Succeeded + lp.Failed) / int64(set.Runners))
		if lp.Elapsed > phase && lp.Arrivals >= int64(set.Runners) {
			p.Stage = "finishing"
		}
		st, err := beat("running", "", "")
		if err != nil {
			s.log.Error("race: rehearsal's gauges not stored: stopping it", "rehearsal", rh.ID, "err", err)
		}
		if err != nil || st == "stopping" {
			stopped = true
			cancel() // a director stopped it, or it was given up for dead
		}
	}})
	if err != nil {
		fail(err)
		return
	}
	res.Settings.Target = raceURL(cp.Slug)
	js, err := json.Marshal(res)
	if err != nil {
		fail(err)
		return
	}
	// The gauges' last word is the report's.
	rep := summarize(res)
	p.Stage, p.Active, p.PerSecond, p.Elapsed = "ended", 0, 0, res.Seconds
	p.Requests, p.Errors = res.Totals.Requests, res.Totals.Errors
	p.Arrived, p.Registered, p.Failed = rep.Runners, rep.Registered, rep.NotRegistered
	p.Percent = int(100 * rep.Runners / int64(set.Runners))
	note := ""
	switch {
	case stopped:
		note = "Stopped before the end: the report covers the runners until then."
	case s.bg.Err() != nil:
		note = "The instance shut down before the end: the report covers the runners until then."
	}
	if _, err := beat("done", string(js), note); err != nil {
		s.log.Error("race: rehearsal's report not stored", "rehearsal", rh.ID, "err", err)
	}
}

// refundRehearsals cancels and refunds the rehearsal registrations whose
// refund delay has passed, gives up rehearsals whose instance died, and
// removes the copies and runners of rehearsals long over: part of the
// sweep.
func (s *Service) refundRehearsals(ctx context.Context) (int, error) {
	if untidy, err := s.store.RehearsalsUntidy(ctx); err != nil || !untidy {
		return 0, err // most sites, most of the time: one read
	}
	now := s.now()
	if _, err := s.store.AbandonRehearsals(ctx, now.Add(-rehearsalAbandoned), now); err != nil {
		return 0, err
	}
	due, err := s.store.DueRefunds(ctx, now, 500)
	if err != nil {
		return 0, err
	}
	// A copy's due registrations in one transaction, under one new
	// version (DueRefunds gives a copy's together).
	n := 0
	for len(due) > 0 {
		k := 1
		for k < len(due) && due[k].race == due[0].race {
			k++
		}
		batch := due[:k]
		due = due[k:]
		done := 0
		err := s.editRace(ctx, batch[0].race, batch[0].slug, func(tx *db.Tx) error {
			done = 0
			for _, d := range batch {
				_, err := s.cancelIn(ctx, tx, d.race, d.reg)
				if errors.Is(err, errCancelledAlready) {
					continue // by another instance's sweep meanwhile
				}
				if err != nil {
					return err
				}
				done++
			}
			return nil
		})
		if err != nil {
			return n, err
		}
		n += done
	}
	if n > 0 && s.jobs != nil {
		s.jobs.Notify()
	}
	// An hour after a rehearsal ended with everything refunded, its copy
	// and its runners' accounts go.
	if k, err := s.store.CleanRehearsals(ctx, now, now.Add(-rehearsalKeep), 5000); err != nil {
		return n, err
	} else if k > 0 {
		s.usersGone()
		s.log.Info("race: rehearsals' runner accounts removed", "n", k)
	}
	return n, nil
}
