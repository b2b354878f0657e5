package db

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
)

// A request key makes a request that is sent twice harmless. In cluster
// mode nginx sends a POST again to the next instance when the first one
// died with it (proxy_next_upstream non_idempotent), and names both sends
// with one X-Request-Id. The first write transaction of a request that
// carries a key (WithRequestKey) inserts the key into request_keys, in the
// same transaction: if the first send committed, the second finds the key
// and gets errs.ErrRepeated instead of writing again; if it did not, the key
// went with its rollback (a dead client's transaction is rolled back by
// the database) and the second send is carried out. A send whose first
// instance is still inside its transaction waits on the key's row.
//
// Only the first transaction of a request is guarded: a request that
// commits twice and dies between the two leaves its second undone. Writes
// outside a transaction (DB.Exec) are not guarded; the writes a user
// makes go through WithTx or the Batcher.

//go:embed migrations
var migrations embed.FS

// KeyMigrations makes the table of request keys, for every app.
var KeyMigrations = EmbeddedMigrations("db", migrations)

// requestKeyTTL is how long a key is kept: far past any retry.
const requestKeyTTL = time.Hour

type requestKeyCtx struct{}

// requestKey is a request's key and whether a transaction of it committed.
type requestKey struct {
	key       string
	committed atomic.Bool
}

// WithRequestKey returns ctx carrying key, the request's name across its
// sends: the first write transaction under it is carried out once.
func WithRequestKey(ctx context.Context, key string) context.Context {
	if key == "" {
		return ctx
	}
	return context.WithValue(ctx, requestKeyCtx{}, &requestKey{key: key})
}

// WithoutRequestKey returns ctx without a request key: for a request that
// is safe to carry out again by itself (its own state and an idempotency
// key of its own), which spans several transactions. A send that finds its
// first send's first transaction committed then goes on with what the
// first left undone, instead of being refused as a repeat.
func WithoutRequestKey(ctx context.Context) context.Context {
	if k, _ := ctx.Value(requestKeyCtx{}).(*requestKey); k == nil {
		return ctx
	}
	return context.WithValue(ctx, requestKeyCtx{}, (*requestKey)(nil))
}

// begin opens the transaction and claims in it, as its first statement,
// the request keys that of carry (the transaction's own context, or the
// contexts of a batch's writes), but for requests that committed one
// already. It returns ErrRepeated if a key is there (or twice in of: a
// batch then runs its writes alone, and the second finds the first's). On
// PostgreSQL the BEGIN and the claim go in one round trip (pgTx).
func (tx *Tx) begin(ctx context.Context, of []context.Context) error {
	var keys []*requestKey
	for _, c := range of {
		if k, _ := c.Value(requestKeyCtx{}).(*requestKey); k != nil && !k.committed.Load() {
			keys = append(keys, k)
		}
	}
	claim, now := "", time.Now().Unix()
	args := make([]any, 0, 2*len(keys))
	if len(keys) > 0 {
		claim = "INSERT INTO request_keys (id, at) VALUES " + Values(len(keys), 2)
		for _, k := range keys {
			args = append(args, k.key, now)
		}
	}
	var err error
	if tx.db.Dialect == Postgres {
		if claim != "" {
			tx.db.count(ctx)
		}
		var t *pgTx
		if t, err = tx.db.beginPG(ctx, tx.db.Rebind(claim), args...); err == nil {
			tx.tx = t
		}
	} else {
		var stx *sql.Tx
		if stx, err = tx.db.write.BeginTx(ctx, nil); err != nil {
			return fmt.Errorf("db: begin: %w", translate(err))
		}
		tx.tx = stx
		if claim != "" {
			if _, err = tx.Exec(ctx, claim, args...); err != nil {
				stx.Rollback()
			}
		}
	}
	if err != nil {
		if err = translate(err); errors.Is(err, errs.ErrConflict) {
			return errs.ErrRepeated
		}
		return fmt.Errorf("db: begin: %w", err)
	}
	if len(keys) > 0 {
		tx.claims = keys
		tx.db.pruneKeys(now)
	}
	return nil
}

// committed marks the keys this transaction inserted as done for their
// requests: later transactions of the same request write freely.
func (tx *Tx) committed() {
	for _, k := range tx.claims {
		k.committed.Store(true)
	}
}

// pruneKeys deletes keys past their time, at most once every ten minutes
// per process, in the background.
func (db *DB) pruneKeys(now int64) {
	last := db.keysPruned.Load()
	if now-last < 600 || !db.keysPruned.CompareAndSwap(last, now) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.Exec(ctx, "DELETE FROM request_keys WHERE at < ?", now-int64(requestKeyTTL/time.Second)); err != nil && db.log != nil {
			db.log.Warn("db: pruning request keys", "err", err)
		}
	}()
}
