package checkout

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/pubsub"
)

// The durable hand-off and what follows it. A purchase charged moves to
// paid, committed before the buyer is told: the hand-off, a row that no
// crash loses. The request that charged it hands it to its instance's
// Writer (HandOff), which moves it to paid in the transaction that writes
// the paid purchases, shared by every purchase handed off meanwhile: a
// transaction less per purchase than a hand-off of its own, and written
// in that same commit as a rule. A Writer, on every
// instance, turns paid purchases into what the app sells (race: a
// registration with its bib and mail; rent: a rental) in batches, woken
// by a hand-off (Kick) and at each sweep (what a crashed instance left,
// and at start). Each batch's purchases are announced on the bus, so a
// buyer's request waiting for its purchase to be written (Await) hears of
// it on whichever instance wrote it.
//
// Every Every (10 s) the Writer sweeps: it releases held purchases whose
// hold ran out (the app gives their stock back), runs the app's own
// periodic work, and settles purchases left paying (a process that died
// between charging and storing the outcome, a gateway that never
// answered) by asking the gateway what happened under their key. An idle
// site costs the sweep's few statements every Every, not work every
// second; its statements are not counted as requests' (db.Uncounted).
//
// Its functions are the app's, each its own transaction (Config).

// ChargeTimeout bounds a charge and the write of its outcome, which go on
// if the buyer's browser goes away: a charge must not be left without its
// purchase moving.
const ChargeTimeout = 30 * time.Second

// StalePaying: a purchase paying this long is settled with the gateway.
// The process charging it gives up after ChargeTimeout (its context
// ends), so past twice that no process still works on it: a crashed
// instance's buyers learn their outcome a minute after, not five.
const StalePaying = 2 * ChargeTimeout

// The Writer's defaults.
const (
	DefaultBatch = 500              // purchases written per transaction at most
	DefaultEvery = 10 * time.Second // a sweep this often
	releaseBatch = 1000             // expired holds released per transaction
	staleBatch   = 100              // stale payments settled per sweep
)

// Unsettled is a purchase left paying, as Config.StalePaying lists it.
type Unsettled struct {
	ID     string // the app's purchase id: Config.MarkPaid's and Declined's
	Key    string // its charge's idempotency key (Key)
	Amount int64  // 0: nothing to charge; it is paid at once
}

// Config is what an app gives its Writer: its name, the core's services,
// and what it does with its purchases' rows.
type Config struct {
	App     string      // "race": its logs, and the bus subject "<app>.written"
	Gateway pay.Gateway // asked what became of a stale payment (Settle)
	Bus     *pubsub.Bus // the "written" news between instances; nil: one instance
	Log     *slog.Logger
	Now     func() time.Time // the clock the purchases' times are on; nil: time.Now
	Batch   int              // purchases per write at most; 0: DefaultBatch
	Every   time.Duration    // between sweeps; 0: DefaultEvery
	// Alone says this process is the only one that charges (embedded
	// mode: one process owns the database): a purchase left paying since
	// before Start has nobody charging it, and is settled at the first
	// sweep the gateway's record allows (FindLag), not StalePaying after.
	Alone bool

	// WritePaid, in one transaction, first moves the purchases charged
	// (handed off to this Writer: HandOff) from paying to paid with
	// their payments, as MarkPaid does, and returns those it moved as
	// paid (one that is not paying is left as it is and not returned:
	// its HandOff runs MarkPaid, which says why); then writes up to
	// limit paid purchases, oldest first, as what the app sells (paid ->
	// done), and returns their ids as written (none: nothing was paid).
	// A purchase another instance wrote meanwhile is not among them: the
	// statement that moves it names the state it expects (a Move).
	WritePaid func(ctx context.Context, limit int, charged []HandedOff) (paid, written []string, err error)
	// ReleaseExpired releases up to limit held purchases whose hold ran
	// out at now, giving their stock back (Stock.GiveBack), in one
	// transaction, and says how many it released.
	ReleaseExpired func(ctx context.Context, now time.Time, limit int) (int, error)
	// StalePaying lists up to limit purchases paying since before.
	StalePaying func(ctx context.Context, before time.Time, limit int) ([]Unsettled, error)
	// MarkPaid moves purchase id from paying to paid with payment (""
	// when it cost nothing), in a transaction of its own: the hand-off of
	// a payment settled by a sweep, or one the Writer did not take
	// (HandOff). Paid already by the same payment is no error.
	MarkPaid func(ctx context.Context, id, payment string) error
	// Declined moves purchase id from paying back to held, under its
	// next attempt's key, if it has been paying since before (not paying
	// anew since: its buyer submitted again).
	Declined func(ctx context.Context, id string, before time.Time) error
	// Sweep, if set, is the app's own work at each sweep, after the
	// expired holds are released and before stale payments are settled
	// (race: lotteries drawn, waiting lists invited).
	Sweep func(ctx context.Context)
}

// HandedOff is a purchase charged, handed off to the Writer (HandOff): its id
// and its payment ("" when it cost nothing).
type HandedOff struct{ ID, Payment string }

// HandOffWait bounds how long a hand-off waits for the Writer to take it
// (busy with a batch or a sweep) before it is written by a transaction
// of its own (Config.MarkPaid): the buyer is told within it either way.
const HandOffWait = 2 * time.Second

// handOff is a hand-off queued for the Writer's next write: taken once a
// write holds it (it can no longer be withdrawn), then answered on done
// (nil: it is paid; else it is not, and its HandOff marks it paid alone).
type handOff struct {
	p     HandedOff
	taken bool
	done  chan error
}

// errNotTaken answers a hand-off that the Writer did not write as paid.
var errNotTaken = errors.New("checkout: hand-off not taken by the writer")

// Writer writes an app's paid purchases in batches and sweeps its expired
// holds and stale payments (see Config).
type Writer struct {
	c       Config
	subject string
	started time.Time

	kick, stop, done, swept chan struct{}
	stopOnce                sync.Once
	unsub                   func()
	sweeping                sync.Mutex // one sweep at a time: the loop's, a test's

	mu    sync.Mutex
	waits map[string][]chan struct{} // purchase id -> its waiting requests

	qmu     sync.Mutex
	queue   []*handOff // hand-offs for the next write
	running bool       // the loop takes hand-offs (between Start and its end)
}

// NewWriter is the Writer of c; Start runs it.
func NewWriter(c Config) *Writer {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Batch <= 0 {
		c.Batch = DefaultBatch
	}
	if c.Every <= 0 {
		c.Every = DefaultEvery
	}
	for name, f := range map[string]bool{"WritePaid": c.WritePaid == nil, "ReleaseExpired": c.ReleaseExpired == nil,
		"StalePaying": c.StalePaying == nil, "MarkPaid": c.MarkPaid == nil, "Declined": c.Declined == nil, "Gateway": c.Gateway == nil} {
		if f {
			panic(fmt.Sprintf("checkout: %s's writer has no %s", c.App, name))
		}
	}
	return &Writer{c: c, subject: c.App + ".written", kick: make(chan struct{}, 1), stop: make(chan struct{}),
		done: make(chan struct{}), swept: make(chan struct{}), waits: map[string][]chan struct{}{}}
}

// Start runs the writer until Close: a sweep at once (what a crash left),
// then writes when kicked and sweeps every Every.
func (w *Writer) Start() error {
	w.started = w.c.Now()
	w.qmu.Lock()
	w.running = true
	w.qmu.Unlock()
	if w.c.Bus != nil {
		unsub, err := w.c.Bus.Subscribe(w.subject, func(_ string, data []byte) {
			w.wake(strings.Split(string(data), ","))
		})
		if err != nil {
			return err
		}
		w.unsub = unsub
	}
	go w.loop()
	return nil
}

// Close stops the writer after the batch under way; paid purchases left
// are written by the next start or by another instance.
func (w *Writer) Close() {
	w.stopOnce.Do(func() { close(w.stop) })
	<-w.done
	if w.unsub != nil {
		w.unsub()
	}
}

// Kick asks for a write now: a purchase was handed off.
func (w *Writer) Kick() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Swept is closed once the sweep at start is done.
func (w *Writer) Swept() <-chan struct{} { return w.swept }

func (w *Writer) loop() {
	defer close(w.done)
	defer w.drop()
	tick := time.NewTicker(w.c.Every)
	defer tick.Stop()
	w.Sweep(context.Background())
	close(w.swept)
	sweep := false
	for {
		if sweep {
			w.Sweep(context.Background())
		}
		for w.writeOnce() { // a full batch, or hand-offs left: more may wait
		}
		select {
		case <-w.stop:
			return
		case <-w.kick:
			sweep = false
		case <-tick.C:
			sweep = true
		}
	}
}

// writeOnce writes one batch, with the hand-offs queued, and reports
// whether more may wait: the batch was full, or hand-offs came meanwhile.
func (w *Writer) writeOnce() bool {
	ctx, cancel := context.WithTimeout(db.Uncounted(context.Background()), time.Minute)
	defer cancel()
	hs := w.take(w.c.Batch)
	charged := make([]HandedOff, len(hs))
	for i, h := range hs {
		charged[i] = h.p
	}
	paid, ids, err := w.c.WritePaid(ctx, w.c.Batch, charged)
	if err != nil {
		w.c.Log.Error(w.c.App+": writing paid purchases", "err", err)
		w.answer(hs, nil, err)
		return false
	}
	if len(ids) > 0 {
		w.wake(ids)
		if w.c.Bus != nil {
			if err := w.c.Bus.Publish(w.subject, []byte(strings.Join(ids, ","))); err != nil {
				w.c.Log.Warn(w.c.App+": telling other instances of written purchases", "err", err)
			}
		}
	}
	w.answer(hs, paid, nil) // after the news: a buyer told paid finds it written
	return len(ids) == w.c.Batch || w.queued() > 0
}

// take takes up to n queued hand-offs for a write.
func (w *Writer) take(n int) []*handOff {
	w.qmu.Lock()
	defer w.qmu.Unlock()
	n = min(n, len(w.queue))
	hs := w.queue[:n:n]
	w.queue = w.queue[n:]
	for _, h := range hs {
		h.taken = true
	}
	return hs
}

func (w *Writer) queued() int {
	w.qmu.Lock()
	defer w.qmu.Unlock()
	return len(w.queue)
}

// answer tells the hand-offs of a write its outcome: nil for those it
// moved to paid, else err (errNotTaken if nil).
func (w *Writer) answer(hs []*handOff, paid []string, err error) {
	if err == nil {
		err = errNotTaken
	}
	moved := make(map[string]bool, len(paid))
	for _, id := range paid {
		moved[id] = true
	}
	for _, h := range hs {
		if moved[h.p.ID] {
			h.done <- nil
		} else {
			h.done <- err
		}
	}
}

// drop ends the taking of hand-offs (the loop ends): those queued are
// answered, and their HandOffs mark them paid alone.
func (w *Writer) drop() {
	w.qmu.Lock()
	hs := w.queue
	w.queue, w.running = nil, false
	w.qmu.Unlock()
	w.answer(hs, nil, errNotTaken)
}

// Sweep sweeps now and returns when it is done: expired holds released,
// the app's Sweep, stale payments settled (a purchase paid by settling is
// written by the loop, kicked). The loop calls it every Every; a test
// calls it instead of waiting for the clock. Two sweeps never overlap.
func (w *Writer) Sweep(ctx context.Context) {
	w.sweeping.Lock()
	defer w.sweeping.Unlock()
	ctx, cancel := context.WithTimeout(db.Uncounted(ctx), time.Minute)
	defer cancel()
	now := w.c.Now()
	for {
		n, err := w.c.ReleaseExpired(ctx, now, releaseBatch)
		if err != nil {
			w.c.Log.Error(w.c.App+": releasing expired holds", "err", err)
			break
		}
		if n > 0 {
			w.c.Log.Debug(w.c.App+": released expired holds", "n", n)
		}
		if n < releaseBatch {
			break
		}
	}
	if w.c.Sweep != nil {
		w.c.Sweep(ctx)
	}
	before := w.StaleBefore()
	stale, err := w.c.StalePaying(ctx, before, staleBatch)
	if err != nil {
		w.c.Log.Error(w.c.App+": finding stale payments", "err", err)
		return
	}
	for _, p := range stale {
		if err := w.SettlePaying(ctx, p, before); err != nil {
			w.c.Log.Warn(w.c.App+": settling a payment", "purchase", p.ID, "err", err)
		}
	}
}

// StaleBefore is the time before which a purchase still paying now is
// settled with the gateway: past the charging process's own limit
// (StalePaying), and past the time the gateway's record may lag a charge
// (FindLag: Stripe's search), so that a charge made is not taken for
// none. Alone, a purchase paying since before this process started has
// no process charging it: only the gateway's lag holds it.
func (w *Writer) StaleBefore() time.Time {
	now := w.c.Now()
	before := now.Add(-StalePaying)
	if w.c.Alone && w.started.After(before) {
		before = w.started
	}
	if lag := now.Add(-w.c.Gateway.FindLag()); lag.Before(before) {
		before = lag
	}
	return before
}

// SettlePaying decides purchase p, left paying since before: the gateway
// tells what happened under its key (Settle). Charged: it is paid (and the
// writer kicked); declined or never charged: it is held again, if still
// paying since before (a buyer who submitted again meanwhile, paying anew
// under the same key, is not undone); unknown: the error, and the next
// sweep asks again.
func (w *Writer) SettlePaying(ctx context.Context, p Unsettled, before time.Time) error {
	if p.Amount == 0 { // the sweep runs on the loop, which takes no hand-off meanwhile: alone
		return w.handOffAlone(ctx, p.ID, "")
	}
	got, out, err := Settle(ctx, w.c.Gateway, p.Key)
	switch out {
	case Charged:
		w.c.Log.Info(w.c.App+": a lost payment answer settled: paid", "purchase", p.ID, "payment", got.ID)
		return w.handOffAlone(ctx, p.ID, got.ID)
	case Declined:
		return w.c.Declined(ctx, p.ID, before)
	}
	return err // unavailable: next round
}

// HandOff commits the hand-off of purchase id, charged by payment ("" when
// it cost nothing): paid, in the Writer's next write (Config.WritePaid),
// with the hand-offs of other buyers and as a rule written in the same
// commit. A hand-off the Writer does not take within HandOffWait (it is
// busy), or that its write does not move to paid, or made while it does
// not run, is committed alone (Config.MarkPaid, then the Writer is
// kicked). The buyer is told after it returns: from here nothing is lost.
func (w *Writer) HandOff(ctx context.Context, id, payment string) error {
	h := &handOff{p: HandedOff{id, payment}, done: make(chan error, 1)}
	if !w.enqueue(h) {
		return w.handOffAlone(ctx, id, payment)
	}
	w.Kick()
	t := time.NewTimer(HandOffWait)
	defer t.Stop()
	var err error
	select {
	case err = <-h.done:
	case <-t.C:
		err = w.withdraw(h)
	case <-ctx.Done():
		err = w.withdraw(h)
	}
	if err == nil {
		return nil
	}
	if !errors.Is(err, errNotTaken) {
		w.c.Log.Warn(w.c.App+": a hand-off's write failed; it is written alone", "purchase", id, "err", err)
	}
	return w.handOffAlone(ctx, id, payment)
}

// enqueue queues h for the next write; false if the loop does not run.
func (w *Writer) enqueue(h *handOff) bool {
	w.qmu.Lock()
	defer w.qmu.Unlock()
	if !w.running {
		return false
	}
	w.queue = append(w.queue, h)
	return true
}

// withdraw takes h out of the queue if no write took it yet (errNotTaken),
// else waits for the outcome of the write that did.
func (w *Writer) withdraw(h *handOff) error {
	w.qmu.Lock()
	if !h.taken {
		w.queue = slices.DeleteFunc(w.queue, func(q *handOff) bool { return q == h })
		w.qmu.Unlock()
		return errNotTaken
	}
	w.qmu.Unlock()
	return <-h.done
}

// handOffAlone commits the hand-off of purchase id in a transaction of its
// own (Config.MarkPaid), then kicks the Writer.
func (w *Writer) handOffAlone(ctx context.Context, id, payment string) error {
	if err := w.c.MarkPaid(ctx, id, payment); err != nil {
		return err
	}
	w.Kick()
	return nil
}

// Listen returns a channel closed when purchase id is written (here, or
// heard of from another instance), and stop, which the listener calls
// when it no longer waits.
func (w *Writer) Listen(id string) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	w.mu.Lock()
	w.waits[id] = append(w.waits[id], ch)
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		list := w.waits[id]
		for i, c := range list {
			if c == ch {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(w.waits, id)
		} else {
			w.waits[id] = list
		}
	}
}

// Listening is how many requests wait for purchase id now.
func (w *Writer) Listening(id string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.waits[id])
}

// wake tells the requests waiting for ids.
func (w *Writer) wake(ids []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range ids {
		for _, ch := range w.waits[id] {
			close(ch)
		}
		delete(w.waits, id)
	}
}

// Await is what find finds of purchase id once written (race: its
// registration), waiting up to d for it to be written, by this instance's
// writer or another's; nil if it is not written by then. find answers nil
// for a purchase not written yet.
func Await[T any](ctx context.Context, w *Writer, id string, d time.Duration, find func(context.Context) (*T, error)) (*T, error) {
	var written <-chan struct{}
	if d > 0 {
		// Listen before looking, so that a write between the two is heard.
		var stop func()
		written, stop = w.Listen(id)
		defer stop()
	}
	got, err := find(ctx)
	if got != nil || err != nil || d <= 0 {
		return got, err
	}
	if ok, err := Wait(ctx, written, d); !ok {
		return nil, err
	}
	return find(ctx)
}

// Wait waits up to d for written (a channel of Listen): whether it was
// written by then; ctx's error if ctx ends first.
func Wait(ctx context.Context, written <-chan struct{}, d time.Duration) (bool, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-written:
		return true, nil
	case <-t.C:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}
