package db

import (
	"context"
	"database/sql"
	"log/slog"
	"time"
)

// CheckpointEvery is how often an SQLite database's write-ahead log is
// copied into the database file off the writer's commits.
const CheckpointEvery = 250 * time.Millisecond

// checkpointer copies SQLite's write-ahead log into the database file from
// a connection of its own, a PASSIVE checkpoint every CheckpointEvery: it
// neither waits for nor holds up readers and the writer. SQLite also
// checkpoints inside the commit that takes the log past 1,000 pages, on
// the connection that made it, here the writer's one: that commit, and
// every write behind it, waits for the copy and its fsync. In the race's
// 50,000-runner burst (b9 of stop 26) a second's writes waited 2.2 s
// between them so, with the server's core two-thirds busy. The writer
// keeps its own checkpoint, as only it restarts the log (a checkpoint
// from elsewhere never finds the log whole while commits go on: with the
// writer's turned off the log grew to 5.5 GB in one burst), but finds
// little left to copy.
type checkpointer struct {
	pool *sql.DB
	stop chan struct{}
	done chan struct{}
}

// startCheckpoints checkpoints over pool (one connection) every `every`.
// A failure is only logged (to slog's default: the database's own logger
// comes later, SetLog): the next look tries again, and the last
// connection's close copies what is left.
func startCheckpoints(pool *sql.DB, every time.Duration) *checkpointer {
	c := &checkpointer{pool: pool, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*every)
			_, err := pool.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
			cancel()
			if err != nil {
				slog.Warn("db: checkpoint", "err", err)
			}
		}
	}()
	return c
}

// close stops the checkpoints and closes their connection (the last
// connection to close checkpoints the whole log).
func (c *checkpointer) close() error {
	if c == nil {
		return nil
	}
	close(c.stop)
	<-c.done
	return c.pool.Close()
}
