package rehearsals

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/url"
	"sync"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/race/races"
)

// service decides who may start, stop and see which rehearsal, and runs
// them; it calls the store, and race through Deps.Race.
type service struct {
	*Deps
	store   *store
	bg      context.Context // ends with the app (Close)
	stop    context.CancelFunc
	running *sync.WaitGroup // the rehearsals this instance runs
	// stored, if set (tests), is told of each heartbeat stored, in the
	// rehearsal's goroutine: until it returns, the rehearsal's gauges stay.
	stored func(status string, p progress)
}

var errNoRehearsal = errs.E(errs.NotFound, "There is no such rehearsal.")

// list are d's race's rehearsals, newest first.
func (s *service) list(ctx context.Context, d *races.Directing) ([]*rehearsal, error) {
	return s.store.list(ctx, d.Race.ID, 50)
}

// get is rehearsal id of d's race.
func (s *service) get(ctx context.Context, d *races.Directing, id int64) (*rehearsal, error) {
	rh, err := s.store.get(ctx, d.Race.ID, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, errNoRehearsal
	}
	return rh, err
}

// report is rh's report; nil before it has one.
func (s *service) report(ctx context.Context, rh *rehearsal) (*report, error) {
	if !rh.HasReport {
		return nil, nil
	}
	js, err := s.store.report(ctx, rh.ID)
	if err != nil {
		return nil, err
	}
	return readReport(js)
}

// refunds are how many registrations rehearsal rh made, and how many of
// them are refunded.
func (s *service) refunds(ctx context.Context, rh *rehearsal) (made, refunded int, err error) {
	if rh.CopyID == 0 {
		return rh.Made, rh.Refunded, nil
	}
	return s.store.counts(ctx, s.DB, rh.CopyID)
}

// comment stores the director's comment on rehearsal id.
func (s *service) comment(ctx context.Context, d *races.Directing, id int64, comment string) error {
	comment, msg := commentField.Clean(comment)
	if msg != "" {
		return errs.Fields(map[string]string{"comment": msg})
	}
	err := s.store.setComment(ctx, d.Race.ID, id, comment)
	if errors.Is(err, errs.ErrNotFound) {
		return errNoRehearsal
	}
	return err
}

// stopOne asks the instance running rehearsal id to stop it: its runners
// stop, the report covers what they did.
func (s *service) stopOne(ctx context.Context, d *races.Directing, id int64) error {
	return s.store.stop(ctx, d.Race.ID, id)
}

// start stores a rehearsal of d's race with the settings typed and starts
// it on this instance: it makes the runners' accounts and the copy of the
// race, then runs them, in the background.
func (s *service) start(ctx context.Context, d *races.Directing, in input) (*rehearsal, error) {
	set, f := in.validate(d.Race, s.Now())
	if len(f) > 0 {
		return nil, errs.Fields(f)
	}
	if s.Jobs == nil {
		return nil, errs.E(errs.Conflict, "This site has no background jobs to refund a rehearsal's registrations with, so it cannot run one.")
	}
	if s.Pay == nil || !s.Pay.MovesNoMoney() {
		name := "none"
		if s.Pay != nil {
			name = s.Pay.Name()
		}
		return nil, errs.E(errs.Conflict, "Rehearsals pay with test cards, and this site's payment gateway (%s) moves real money: rehearse on a site set up with a test gateway.", name)
	}
	addr := ""
	if s.Listening != nil {
		addr = s.Listening()
	}
	self, err := selfURL(addr)
	if err != nil {
		return nil, errs.E(errs.Conflict, "This instance cannot reach itself over loopback (%v), so it cannot run a rehearsal.", err)
	}
	now := s.Now()
	rh := &rehearsal{RaceID: d.Race.ID, CreatedBy: d.User.ID, CreatedAt: now, Settings: set, Status: "preparing", HeartbeatAt: now}
	if err := s.store.add(ctx, rh, now.Add(-abandoned)); err != nil {
		return nil, err
	}
	src := *d.Race
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		s.rehearse(rh, &src, d.User.ID, self)
	}()
	return rh, nil
}

// rehearse runs rehearsal rh of race src to its end and stores the report
// (or what went wrong).
func (s *service) rehearse(rh *rehearsal, src *races.Race, director int64, self string) {
	ctx, cancel := context.WithCancel(s.bg)
	defer cancel()
	p := progress{Stage: "accounts"}
	beat := func(status string, report, failure string) (string, error) {
		bctx, c := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer c()
		was, err := s.store.beat(db.Uncounted(bctx), rh.ID, status, p, report, failure, s.Now())
		if err == nil && s.stored != nil {
			s.stored(was, p)
		}
		return was, err
	}
	fail := func(err error) {
		s.Log.Error("race: rehearsal failed", "rehearsal", rh.ID, "err", err)
		p.Stage = "ended"
		if _, berr := beat("failed", "", err.Error()); berr != nil {
			s.Log.Error("race: rehearsal's end not stored", "rehearsal", rh.ID, "err", berr)
		}
	}
	set := rh.Settings
	now := s.Now()
	ids, err := auth.PlaceholderUsers(ctx, s.DB, prefix(rh.ID), domain, set.Runners, now)
	if err != nil {
		fail(err)
		return
	}
	tokens, err := auth.SeedSessions(ctx, s.DB, ids, now)
	if err != nil {
		fail(err)
		return
	}
	p.Stage = "copy"
	if st, err := beat("preparing", "", ""); err != nil || st == "stopping" {
		fail(cmp.Or(err, errors.New("stopped by a director before it began")))
		return
	}
	sc, aim := s.Race.Rush(set.wizard())
	phase := sc.Phases[0].Duration
	now = s.Now()
	cp, copied, err := s.copy(ctx, src, rh.ID, director, now.Add(-time.Minute), now.Add(phase+sc.Grace+time.Hour), now)
	if err != nil {
		fail(err)
		return
	}
	to := Aim{Slug: cp.Slug, Sessions: tokens}
	for _, e := range src.Events {
		id, ok := copied[e.ID]
		switch {
		case !ok:
		case e.ID == set.Event:
			to.Event = id
		case set.Event == 0:
			to.Events = append(to.Events, id)
		}
	}
	if to.Event == 0 && len(to.Events) == 0 {
		fail(errors.New("the event rehearsed has started since"))
		return
	}
	aim(to)
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
			s.Log.Error("race: rehearsal's gauges not stored: stopping it", "rehearsal", rh.ID, "err", err)
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
	res.Settings.Target = races.URL(cp.Slug)
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
		s.Log.Error("race: rehearsal's report not stored", "rehearsal", rh.ID, "err", err)
	}
}

// copy makes the copy of race src for rehearsal id (Race.Copy) and
// records it as the rehearsal's, in one transaction.
func (s *service) copy(ctx context.Context, src *races.Race, id, director int64, opens, closes, now time.Time) (cp *races.Race, copied map[int64]int64, err error) {
	err = s.DB.WithTx(ctx, func(tx *db.Tx) error {
		if cp, copied, err = s.Race.Copy(ctx, tx, src, id, director, opens, closes, now); err != nil {
			return err
		}
		return s.store.setCopy(ctx, tx, id, cp.ID)
	})
	return cp, copied, err
}

// sweep cancels and refunds the rehearsal registrations whose refund
// delay has passed, gives up rehearsals whose instance died, and removes
// the copies and runners of rehearsals long over: part of race's sweep.
func (s *service) sweep(ctx context.Context) (int, error) {
	if untidy, err := s.store.untidy(ctx); err != nil || !untidy {
		return 0, err // most sites, most of the time: one read
	}
	now := s.Now()
	if _, err := s.store.abandon(ctx, now.Add(-abandoned), now); err != nil {
		return 0, err
	}
	due, err := s.store.dueRefunds(ctx, now, 500)
	if err != nil {
		return 0, err
	}
	// A copy's due registrations in one edit, under one new version
	// (dueRefunds gives a copy's together).
	n := 0
	for len(due) > 0 {
		k := 1
		for k < len(due) && due[k].race == due[0].race {
			k++
		}
		regs := make([]int64, k)
		for i, d := range due[:k] {
			regs[i] = d.reg
		}
		done, err := s.Race.Cancel(ctx, due[0].race, due[0].slug, regs)
		n += done
		if err != nil {
			return n, err
		}
		due = due[k:]
	}
	if n > 0 && s.Jobs != nil {
		s.Jobs.Notify() // the refunds' jobs
	}
	// An hour after a rehearsal ended with everything refunded, its copy
	// and its runners' accounts go.
	k, err := s.store.clean(ctx, now, now.Add(-keep), 5000, s.Race.Drop)
	if k > 0 {
		s.Race.UsersGone()
		s.Log.Info("race: rehearsals' runner accounts removed", "n", k)
	}
	return n, err
}
