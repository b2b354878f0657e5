package db

import "time"

// TxPrepared is the number of statements kept prepared for write
// transactions (-1 without that cache: PostgreSQL).
func TxPrepared(d *DB) int {
	if d.txPrep == nil {
		return -1
	}
	return int(d.txPrep.n.Load())
}

// SetOthersEvery sets how often OnOthers' watcher looks; call it before
// the first OnOthers.
func SetOthersEvery(d *DB, every time.Duration) { d.others.every = every }

// OthersLooks is the number of looks OnOthers' watcher has done.
func OthersLooks(d *DB) int64 { return d.others.looks.Load() }

// OthersWatching reports whether OnOthers' watcher is running.
func OthersWatching(d *DB) bool {
	d.others.mu.Lock()
	done := d.others.done
	d.others.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// Queued is the number of writes waiting for the batcher's loop.
func Queued(b *Batcher) int { return len(b.jobs) }

// TxQueued is the number of texts that write transactions ran often enough
// to be kept prepared (prepared, or queued to be: missed decides before
// WithTx returns); -1 on PostgreSQL.
func TxQueued(d *DB) int {
	if d.txPrep == nil {
		return -1
	}
	d.txPrep.mu.Lock()
	defer d.txPrep.mu.Unlock()
	return len(d.txPrep.queued)
}
