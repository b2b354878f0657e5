package version

import (
	"context"
	"sync"
)

// A request's memo saves the second of two reads of one stamp in a
// request: the site's hot lane looks up a visitor's page at its stamp and,
// when the page is not cached, hands the request to the page's handler,
// which reads the same stamp again. With the stamps in Redis (cluster mode)
// each read is a round trip; with a memo (WithMemo, made by the hot lane)
// the handler's first Get of that stamp takes the one read microseconds
// before instead. The memo keeps one stamp, the request's first, and gives
// it once: any later Get in the request reads afresh.
type memo struct {
	context.Context
	mu        sync.Mutex
	scope, id string
	st        Stamp
	state     uint8 // memoEmpty, memoKept, memoUsed
}

const (
	memoEmpty = iota
	memoKept
	memoUsed
)

type memoKey struct{}

// WithMemo returns ctx with an empty memo (one allocation).
func WithMemo(ctx context.Context) context.Context { return &memo{Context: ctx} }

func (m *memo) Value(key any) any {
	if key == (memoKey{}) {
		return m
	}
	return m.Context.Value(key)
}

func memoOf(ctx context.Context) *memo {
	m, _ := ctx.Value(memoKey{}).(*memo)
	return m
}

// take returns the kept stamp if it is (scope, id)'s, and empties the memo
// for good.
func (m *memo) take(scope, id string) (Stamp, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state != memoKept || m.scope != scope || m.id != id {
		return Stamp{}, false
	}
	m.state = memoUsed
	return m.st, true
}

// keep records the request's first stamp read.
func (m *memo) keep(scope, id string, st Stamp) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state == memoEmpty {
		m.scope, m.id, m.st, m.state = scope, id, st, memoKept
	}
}
