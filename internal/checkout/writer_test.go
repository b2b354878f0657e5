package checkout_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/pubsub"
)

// shop is an app's purchases in memory, as a Writer's Config reaches them:
// each purchase's state, its hold's expiry, when it began paying, its
// payment; one counted stock; the written ones in order.
type shop struct {
	mu       sync.Mutex
	state    map[string]checkout.State
	expires  map[string]time.Time
	payingAt map[string]time.Time
	payment  map[string]string
	taken    int
	written  []string
	swept    int // the app's Sweep calls
	alone    int // MarkPaid calls: hand-offs committed alone
}

func newShop() *shop {
	return &shop{state: map[string]checkout.State{}, expires: map[string]time.Time{}, payingAt: map[string]time.Time{}, payment: map[string]string{}}
}

func (s *shop) hold(id string, until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state[id], s.expires[id] = checkout.Held, until
	s.taken++
}

func (s *shop) pay(id string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state[id], s.payingAt[id] = checkout.Paying, at
}

func (s *shop) get(id string) checkout.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state[id]
}

// move moves id to to if it is in from, as a guarded UPDATE does.
func (s *shop) move(id string, to checkout.State, from checkout.State) bool {
	if s.state[id] != from {
		return false
	}
	s.state[id] = to
	return true
}

// clock is a settable time.
type clock struct{ ns atomic.Int64 }

func (c *clock) Now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *clock) Add(d time.Duration) { c.ns.Add(int64(d)) }

// finder is a gateway whose Find answers per key (a missing key: no charge).
type finder struct {
	gateway
	mu    sync.Mutex
	found map[string]error // key -> nil (charged) or its error
	lag   time.Duration
}

func (f *finder) Find(_ context.Context, key string) (pay.Payment, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	err, ok := f.found[key]
	if !ok {
		return pay.Payment{}, pay.ErrNoCharge
	}
	if err != nil {
		return pay.Payment{}, err
	}
	return pay.Payment{ID: "pay_" + key, Key: key}, nil
}
func (f *finder) FindLag() time.Duration { return f.lag }

// config is s's Writer config on clock c and gateway g.
func (s *shop) config(c *clock, g pay.Gateway, bus *pubsub.Bus) checkout.Config {
	return checkout.Config{App: "shop", Gateway: g, Bus: bus, Now: c.Now, Batch: 2,
		WritePaid: func(_ context.Context, limit int, charged []checkout.HandedOff) ([]string, []string, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			var paid []string
			for _, p := range charged {
				if s.move(p.ID, checkout.Paid, checkout.Paying) {
					s.payment[p.ID] = p.Payment
					paid = append(paid, p.ID)
				}
			}
			var ids []string
			for id, st := range s.state {
				if st == checkout.Paid && len(ids) < limit {
					s.move(id, checkout.Done, checkout.Paid)
					ids = append(ids, id)
				}
			}
			s.written = append(s.written, ids...)
			return paid, ids, nil
		},
		ReleaseExpired: func(_ context.Context, now time.Time, limit int) (int, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			n := 0
			for id, st := range s.state {
				if st == checkout.Held && !now.Before(s.expires[id]) && n < limit {
					s.move(id, checkout.Released, checkout.Held)
					s.taken--
					n++
				}
			}
			return n, nil
		},
		StalePaying: func(_ context.Context, before time.Time, limit int) ([]checkout.Unsettled, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			var out []checkout.Unsettled
			for id, st := range s.state {
				if st == checkout.Paying && s.payingAt[id].Before(before) && len(out) < limit {
					out = append(out, checkout.Unsettled{ID: id, Key: checkout.Key("shop", id, 0), Amount: 100})
				}
			}
			return out, nil
		},
		MarkPaid: func(_ context.Context, id, payment string) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.alone++
			if !s.move(id, checkout.Paid, checkout.Paying) && s.payment[id] != payment {
				return errors.New("not paying")
			}
			s.payment[id] = payment
			return nil
		},
		Declined: func(_ context.Context, id string, before time.Time) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.payingAt[id].Before(before) {
				s.move(id, checkout.Held, checkout.Paying)
			}
			return nil
		},
		Sweep: func(context.Context) { s.mu.Lock(); s.swept++; s.mu.Unlock() },
	}
}

// writtenOf is a find for Await: id itself once it is done.
func (s *shop) writtenOf(id string) func(context.Context) (*string, error) {
	return func(context.Context) (*string, error) {
		if s.get(id) == checkout.Done {
			return &id, nil
		}
		return nil, nil
	}
}

func start(t *testing.T, c checkout.Config) *checkout.Writer {
	t.Helper()
	w := checkout.NewWriter(c)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	<-w.Swept()
	return w
}

// A purchase handed off is written once, and a request waiting for it
// hears of it at once, on its own instance and on another (the bus); one
// that waits for a purchase never written gives up after its wait.
func TestWriterWritesHandOffsAndTellsTheWaiting(t *testing.T) {
	bus, err := pubsub.Open("", t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bus.Close() })
	s, c := newShop(), &clock{}
	c.ns.Store(time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	cfg := s.config(c, &gateway{}, bus)
	a := start(t, cfg)
	b := start(t, cfg) // another instance on the same rows and bus
	ctx := context.Background()
	for _, id := range []string{"p1", "p2", "p3"} {
		s.hold(id, c.Now().Add(time.Hour))
		s.pay(id, c.Now())
	}
	heard := make(chan *string, 2)
	for _, w := range []*checkout.Writer{a, b} {
		go func() {
			got, err := checkout.Await(ctx, w, "p3", 10*time.Second, s.writtenOf("p3"))
			if err != nil {
				t.Error(err)
			}
			heard <- got
		}()
	}
	for deadline := time.Now().Add(5 * time.Second); a.Listening("p3")+b.Listening("p3") < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the waits never listened")
		}
	}
	begun := time.Now()
	for _, id := range []string{"p1", "p2", "p3"} {
		if err := a.HandOff(ctx, id, "pay_"+id); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if got := <-heard; got == nil || *got != "p3" {
			t.Fatalf("Await: %v; want p3", got)
		}
	}
	if d := time.Since(begun); d > 5*time.Second {
		t.Errorf("the waits heard after %v; want at once", d)
	}
	if a.Listening("p3")+b.Listening("p3") != 0 {
		t.Error("the waits still listen after they ended")
	}
	s.mu.Lock()
	if len(s.written) != 3 {
		t.Errorf("written %v; want p1, p2, p3 once each", s.written)
	}
	s.mu.Unlock()
	// Written before the wait: found at once; never written: nil after d.
	if got, err := checkout.Await(ctx, b, "p1", 10*time.Second, s.writtenOf("p1")); err != nil || got == nil {
		t.Errorf("Await of a written purchase: %v, %v", got, err)
	}
	if got, err := checkout.Await(ctx, b, "nope", 20*time.Millisecond, s.writtenOf("nope")); err != nil || got != nil {
		t.Errorf("Await of a purchase never written: %v, %v; want nil, nil", got, err)
	}
}

// A sweep releases holds that ran out (their stock back), runs the app's
// own work, and settles payments left paying past StalePaying by the
// gateway's record: charged -> paid, then written; never charged -> held
// again; unknown -> left for the next sweep. A fresh payment is left
// alone.
func TestWriterSweepReleasesAndSettles(t *testing.T) {
	s, c := newShop(), &clock{}
	c.ns.Store(time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	g := &finder{found: map[string]error{checkout.Key("shop", "charged", 0): nil, checkout.Key("shop", "unknown", 0): pay.ErrUnavailable}}
	w := start(t, s.config(c, g, nil))
	ctx := context.Background()
	s.hold("runs-out", c.Now().Add(time.Minute))
	s.hold("stays", c.Now().Add(time.Hour))
	for _, id := range []string{"charged", "never", "unknown"} {
		s.hold(id, c.Now().Add(time.Hour))
		s.pay(id, c.Now())
	}
	c.Add(2 * time.Minute)
	s.hold("fresh", c.Now().Add(time.Hour))
	s.pay("fresh", c.Now())
	w.Sweep(ctx)
	want := map[string]checkout.State{"runs-out": checkout.Released, "stays": checkout.Held, "never": checkout.Held,
		"unknown": checkout.Paying, "fresh": checkout.Paying}
	for id, st := range want {
		if got := s.get(id); got != st {
			t.Errorf("%s after the sweep: %s; want %s", id, got.Name(), st.Name())
		}
	}
	// The charged one is paid, and the kicked writer writes it.
	if got, err := checkout.Await(ctx, w, "charged", 10*time.Second, s.writtenOf("charged")); err != nil || got == nil {
		t.Errorf("the settled payment is not written: %v, %v (state %s)", got, err, s.get("charged").Name())
	}
	s.mu.Lock()
	if s.taken != 5 || s.swept < 2 {
		t.Errorf("taken %d, app's sweeps %d; want 5 (one hold released of 6), at least 2 (at start, now)", s.taken, s.swept)
	}
	s.mu.Unlock()
}

// A payment begun before its process started is settled at once by a
// writer Alone (embedded: nobody else charges), within the gateway's lag
// still; a writer among others waits StalePaying.
func TestWriterAloneSettlesWhatACrashLeftAtStart(t *testing.T) {
	for _, c := range []struct {
		name  string
		alone bool
		lag   time.Duration
		want  checkout.State
	}{
		{"alone", true, 0, checkout.Held},
		{"alone, within the gateway's lag", true, time.Hour, checkout.Paying},
		{"among others", false, 0, checkout.Paying},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, clk := newShop(), &clock{}
			clk.ns.Store(time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
			s.hold("crashed", clk.Now().Add(time.Hour))
			s.pay("crashed", clk.Now())
			clk.Add(time.Second) // the restart
			cfg := s.config(clk, &finder{lag: c.lag}, nil)
			cfg.Alone = c.alone
			start(t, cfg)
			if got := s.get("crashed"); got != c.want {
				t.Errorf("after the sweep at start: %s; want %s", got.Name(), c.want.Name())
			}
		})
	}
}

// Hand-offs are moved to paid by the Writer's own write, several in one
// (no transaction of their own: MarkPaid is not called), and each
// HandOff returns once its purchase is paid, as a rule written too. One
// the write does not move (not paying) is marked paid alone, which says
// why it cannot be; one made while the Writer does not run, alone too.
func TestHandOffsGoInTheWritersWrite(t *testing.T) {
	s, c := newShop(), &clock{}
	c.ns.Store(time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	cfg := s.config(c, &gateway{}, nil)
	cfg.Batch = 100
	w := checkout.NewWriter(cfg)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	<-w.Swept()
	ctx := context.Background()
	const n = 20
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "p" + strconv.Itoa(i)
		s.hold(ids[i], c.Now().Add(time.Hour))
		s.pay(ids[i], c.Now())
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			if err := w.HandOff(ctx, id, "pay_"+id); err != nil {
				t.Errorf("HandOff %s: %v", id, err)
			}
			if st := s.get(id); st != checkout.Paid && st != checkout.Done {
				t.Errorf("%s after its HandOff: %s; want paid or done", id, st.Name())
			}
		})
	}
	wg.Wait()
	for _, id := range ids {
		if got, err := checkout.Await(ctx, w, id, 10*time.Second, s.writtenOf(id)); err != nil || got == nil {
			t.Errorf("%s not written: %v, %v", id, got, err)
		}
	}
	s.mu.Lock()
	if s.alone != 0 || len(s.written) != n || s.payment["p3"] != "pay_p3" {
		t.Errorf("%d hand-offs alone, %d written, p3's payment %q; want 0, %d, pay_p3", s.alone, len(s.written), s.payment["p3"], n)
	}
	s.mu.Unlock()

	s.hold("held", c.Now().Add(time.Hour)) // never paying: no hand-off of it can be
	if err := w.HandOff(ctx, "held", "pay_held"); err == nil {
		t.Error("HandOff of a purchase not paying: nil; want MarkPaid's error")
	}
	w.Close()
	s.hold("late", c.Now().Add(time.Hour))
	s.pay("late", c.Now())
	if err := w.HandOff(ctx, "late", "pay_late"); err != nil || s.get("late") != checkout.Paid {
		t.Errorf("HandOff after Close: %v, %s; want nil, paid (alone)", err, s.get("late").Name())
	}
	s.mu.Lock()
	if s.alone != 2 {
		t.Errorf("%d hand-offs alone; want 2 (the one not paying, the one after Close)", s.alone)
	}
	s.mu.Unlock()
}
