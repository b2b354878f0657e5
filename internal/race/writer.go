package race

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/pubsub"
)

// writer turns paid holds into registrations in batches (Store.WritePaid),
// on every instance: woken by a payment here, and at each sweep (paid holds
// that a crashed instance left behind, and at start). The sweep also gives
// expired holds' places back and settles holds left paying with the
// gateway. An idle site costs the sweep's few statements every sweepEvery,
// not work every second; its statements are not counted as requests'
// (db.Uncounted).
type writer struct {
	svc   *Service
	log   *slog.Logger
	batch int
	// also runs in each batch's transaction (the confirmation mails).
	also func(ctx context.Context, tx *db.Tx, regs []Registration) error
	// after runs after each batch's commit.
	after func(regs []Registration)
	bus   *pubsub.Bus

	kick  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	swept chan struct{} // closed after the first sweep (at start)
	unsub func()
	mu    sync.Mutex
	waits map[string][]chan struct{} // hold id -> its waiting requests
}

// The writer's rhythm.
const (
	writerBatch = 500              // registrations per transaction at most
	writerTick  = time.Second      // a look for paid holds without a kick (another instance's)
	sweepEvery  = 10 * time.Second // expired holds released this often
	// stalePaying: a hold paying this long is settled with the gateway.
	// The process charging it gives up after chargeTimeout (its context
	// ends), so past twice that no process still works on it: a crashed
	// instance's runners learn their outcome a minute after, not five.
	stalePaying    = 2 * chargeTimeout
	writtenSubject = "race.written" // the bus subject of written hold ids
)

func newWriter(svc *Service, bus *pubsub.Bus, log *slog.Logger) *writer {
	return &writer{svc: svc, log: log, batch: writerBatch, bus: bus, kick: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}), swept: make(chan struct{}), waits: map[string][]chan struct{}{}}
}

// Start runs the writer until Close.
func (w *writer) Start() error {
	if w.bus != nil {
		unsub, err := w.bus.Subscribe(writtenSubject, func(_ string, data []byte) {
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

// Close stops the writer after the batch under way.
func (w *writer) Close() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	if w.unsub != nil {
		w.unsub()
	}
}

// Kick asks for a batch now.
func (w *writer) Kick() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// listen returns a channel closed when hold id's registration is written
// (here, or heard of from another instance), and stop, which the listener
// calls when it no longer waits.
func (w *writer) listen(id string) (<-chan struct{}, func()) {
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

// wake tells the requests waiting for ids.
func (w *writer) wake(ids []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range ids {
		for _, ch := range w.waits[id] {
			close(ch)
		}
		delete(w.waits, id)
	}
}

func (w *writer) loop() {
	defer close(w.done)
	tick := time.NewTicker(sweepEvery)
	defer tick.Stop()
	w.sweep() // at start: what a crash left
	close(w.swept)
	sweep := false
	for {
		if sweep {
			w.sweep()
		}
		for w.writeOnce() == w.batch { // a full batch: more may wait
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

// writeOnce writes one batch and returns its size.
func (w *writer) writeOnce() int {
	ctx, cancel := context.WithTimeout(db.Uncounted(context.Background()), time.Minute)
	defer cancel()
	regs, err := w.svc.store.WritePaid(ctx, w.batch, w.svc.now(), func(tx *db.Tx, regs []Registration) error {
		if w.also == nil {
			return nil
		}
		return w.also(ctx, tx, regs)
	})
	if err != nil {
		w.log.Error("race: writing registrations", "err", err)
		return 0
	}
	if len(regs) == 0 {
		return 0
	}
	ids := make([]string, len(regs))
	for i, r := range regs {
		ids[i] = r.HoldID
	}
	w.wake(ids)
	if w.bus != nil {
		if err := w.bus.Publish(writtenSubject, []byte(strings.Join(ids, ","))); err != nil {
			w.log.Warn("race: telling other instances of written registrations", "err", err)
		}
	}
	if w.after != nil {
		w.after(regs)
	}
	return len(regs)
}

// sweep releases expired holds, draws the lotteries that are due, invites
// from the waiting lists (the places that came back, a lottery's winners)
// and settles stale paying ones.
func (w *writer) sweep() {
	ctx, cancel := context.WithTimeout(db.Uncounted(context.Background()), time.Minute)
	defer cancel()
	now := w.svc.now()
	for {
		n, err := w.svc.store.ReleaseExpired(ctx, now, 1000)
		if err != nil {
			w.log.Error("race: releasing expired holds", "err", err)
			break
		}
		if n > 0 {
			w.log.Debug("race: released expired holds", "n", n)
		}
		if n < 1000 {
			break
		}
	}
	if n, err := w.svc.draw(ctx); err != nil {
		w.log.Error("race: drawing lotteries", "err", err)
	} else if n > 0 {
		w.log.Info("race: lotteries drawn", "events", n)
	}
	if inv, err := w.svc.invite(ctx); err != nil {
		w.log.Error("race: inviting from the waiting lists", "err", err)
	} else if len(inv) > 0 {
		w.log.Info("race: invited from the waiting lists", "n", len(inv))
	}
	if n, err := w.svc.refundRehearsals(ctx); err != nil {
		w.log.Error("race: refunding rehearsals' registrations", "err", err)
	} else if n > 0 {
		w.log.Info("race: rehearsals' registrations refunded", "n", n)
	}
	before := now.Add(-w.svc.settleAge())
	stale, err := w.svc.store.StalePaying(ctx, before, 100)
	if err != nil {
		w.log.Error("race: finding stale payments", "err", err)
		return
	}
	for _, h := range stale {
		if err := w.svc.settle(ctx, h, before); err != nil {
			w.log.Warn("race: settling a payment", "hold", h.ID, "err", err)
		}
	}
}
