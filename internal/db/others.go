package db

import (
	"context"
	"time"
)

// WatchOthers calls changed each time another process (a `tutti` command
// run beside the server, say) has committed to the SQLite database since
// the last look, looking every `every` until ctx is done. It lets a cache
// of rows that only this process writes live long and still see another
// process's writes within a look.
//
// SQLite's data_version changes, for one connection, when any other
// connection commits. On the writer connection, the one that commits
// all of this process's writes (reads use connections that cannot write),
// every other connection is another process's. On PostgreSQL it returns
// at once: there, many processes share the database and nothing in memory
// is kept on that promise.
func (db *DB) WatchOthers(ctx context.Context, every time.Duration, changed func()) {
	if db.Dialect != SQLite {
		return
	}
	last, err := db.dataVersion(ctx)
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
			continue
		}
		// After an error, the connection may be a new one, with versions
		// of its own: take it that something changed.
		if err != nil || v != last {
			changed()
		}
		last, err = v, nil
	}
}

// dataVersion is the writer connection's PRAGMA data_version.
func (db *DB) dataVersion(ctx context.Context) (int64, error) {
	var v int64
	err := db.write.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v)
	return v, err
}
