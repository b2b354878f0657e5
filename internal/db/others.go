package db

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// OnOthers registers changed to be called each time another process (a
// `tutti` command run beside the server, say) has committed to the SQLite
// database since the last look. It lets a cache of rows that only this
// process writes live long and still see another process's writes within
// a look (othersEvery): the first registration reads where the database
// stands before it returns, so that no commit after it goes unseen, and
// starts the database's one watcher, whatever the number of caches; Close
// stops it. On PostgreSQL it
// does nothing: there, many processes share the database and nothing in
// memory is kept on that promise.
//
// SQLite's data_version changes, for one connection, when any other
// connection commits. On the writer connection, the one that commits all
// of this process's writes (reads use connections that cannot write),
// every other connection is another process's.
func (db *DB) OnOthers(changed func()) {
	if db.Dialect != SQLite {
		return
	}
	w := &db.others
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fns = append(w.fns, changed)
	if w.done == nil {
		var ctx context.Context
		ctx, w.stop = context.WithCancel(context.Background())
		w.done = make(chan struct{})
		last, err := db.dataVersion(ctx)
		go db.watchOthers(ctx, w.every, last, err)
	}
}

// othersEvery is how often the watcher looks.
const othersEvery = time.Second

// others is OnOthers' registrations and its watcher.
type others struct {
	mu    sync.Mutex
	fns   []func()
	every time.Duration      // othersEvery; tests shorten it
	stop  context.CancelFunc // ends the watcher (Close)
	done  chan struct{}      // closed when the watcher returned; nil: none started
	looks atomic.Int64       // looks done, each with its calls (tests wait on it)
}

// watchOthers looks every so often whether the data version moved from
// last (err: the first read failed).
func (db *DB) watchOthers(ctx context.Context, every time.Duration, last int64, err error) {
	w := &db.others
	defer close(w.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		v, verr := db.dataVersion(ctx)
		if verr != nil {
			if ctx.Err() == nil && db.log != nil {
				db.log.Warn("db: watching other writers", "err", verr)
			}
			err = verr
			w.looks.Add(1)
			continue
		}
		// After an error, the connection may be a new one, with versions
		// of its own: take it that something changed.
		if err != nil || v != last {
			w.mu.Lock()
			fns := w.fns
			w.mu.Unlock()
			for _, fn := range fns {
				fn()
			}
		}
		last, err = v, nil
		w.looks.Add(1)
	}
}

// stopOthers stops the watcher, if one runs, and waits for it.
func (db *DB) stopOthers() {
	w := &db.others
	w.mu.Lock()
	stop, done := w.stop, w.done
	w.mu.Unlock()
	if done != nil {
		stop()
		<-done
	}
}

// dataVersion is the writer connection's PRAGMA data_version.
func (db *DB) dataVersion(ctx context.Context) (int64, error) {
	var v int64
	err := db.write.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v)
	return v, err
}
