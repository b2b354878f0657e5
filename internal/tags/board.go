package tags

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// Board keeps an app's top tags (Trending.Top) in this process's memory, for
// pages to show at no cost: Top reads what was last computed and never
// queries, so a box of trending tags adds no statement to a page. Its own
// goroutine computes it again every Every, and soon after Kick (a tagged
// post was written here), at most once a second; another instance's posts
// show within Every. The reads are background work (db.Uncounted), from
// the lag-tolerant reader: trending does not need the last millisecond.
//
// Scores only change when tags are used or a bucket ends (a decay shared by
// every tag keeps their order), so a board a little behind shows what a
// query would.
type Board struct {
	t     *Trending
	d     *db.DB
	limit int
	every time.Duration
	log   *slog.Logger

	top  atomic.Pointer[[]Trend]
	kick chan struct{}
	done chan struct{}
	wg   sync.WaitGroup
}

// minGap is the least time between two computations.
const minGap = time.Second

// NewBoard computes the limit top tags of t from d and keeps them fresh
// every every (0: 30 s) until Close. log (nil: discarded) gets a failed
// computation, after which the board shows what it had.
func NewBoard(ctx context.Context, t *Trending, d *db.DB, limit int, every time.Duration, log *slog.Logger) (*Board, error) {
	if every <= 0 {
		every = 30 * time.Second
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Board{t: t, d: d, limit: limit, every: every, log: log, kick: make(chan struct{}, 1), done: make(chan struct{})}
	if err := b.compute(ctx); err != nil {
		return nil, err
	}
	b.wg.Add(1)
	go b.run()
	return b, nil
}

// Top is the top tags, highest score first, as last computed.
func (b *Board) Top() []Trend { return *b.top.Load() }

// Kick asks for the top tags to be computed again soon: a post with tags
// was written.
func (b *Board) Kick() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// Close stops the board's goroutine; Top keeps answering what it had.
func (b *Board) Close() {
	select {
	case <-b.done:
	default:
		close(b.done)
	}
	b.wg.Wait()
}

func (b *Board) compute(ctx context.Context) error {
	top, err := b.t.Top(db.Uncounted(ctx), b.d.Lagging(), b.limit)
	if err != nil {
		return err
	}
	if top == nil {
		top = []Trend{}
	}
	b.top.Store(&top)
	return nil
}

func (b *Board) run() {
	defer b.wg.Done()
	tick := time.NewTicker(b.every)
	defer tick.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-b.done
		cancel()
	}()
	last := time.Now()
	for {
		select {
		case <-b.done:
			return
		case <-tick.C:
		case <-b.kick:
			if wait := minGap - time.Since(last); wait > 0 {
				select {
				case <-b.done:
					return
				case <-time.After(wait):
				}
			}
		}
		if err := b.compute(ctx); err != nil && ctx.Err() == nil {
			b.log.Warn("tags: trending board", "err", err)
		}
		last = time.Now()
	}
}
