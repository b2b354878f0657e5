package auth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// DBStore is an scs session store over the sessions table, for both dialects.
// It is ours rather than scs's sqlite3store/postgresstore because Find reads
// on SQLite's read pool (theirs would queue behind the single write
// connection), and one store serves SQLite and PostgreSQL alike. Expiry is
// unix seconds.
type DBStore struct {
	db  *db.DB
	now func() time.Time
	mem *cache.Memo[string, storedSession] // embedded mode: sessions read kept in memory (cache.Memo)
}

// storedSession is a session's data and expiry as the memo keeps them.
type storedSession struct {
	data   []byte
	expiry int64
}

// NewDBStore returns the store; call Cleanup periodically (RunCleanup does).
func NewDBStore(d *db.DB) *DBStore { return &DBStore{db: d, now: time.Now} }

var (
	_ scs.Store    = (*DBStore)(nil)
	_ scs.CtxStore = (*DBStore)(nil)
)

// FindCtx returns the data of an unexpired session.
func (s *DBStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	b, _, found, err := s.find(ctx, token)
	return b, found, err
}

// find is FindCtx with the session's expiry.
func (s *DBStore) find(ctx context.Context, token string) ([]byte, time.Time, bool, error) {
	now := s.now().Unix()
	if m, ok := s.mem.Get(token); ok {
		if m.expiry <= now {
			return nil, time.Time{}, false, nil
		}
		return m.data, time.Unix(m.expiry, 0), true, nil
	}
	g := s.mem.Reading(token)
	var b []byte
	var expiry int64
	err := db.Scan(s.db.QueryRow(ctx, "SELECT data, expiry FROM sessions WHERE token = ? AND expiry > ?", token, now), &b, &expiry)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, time.Time{}, false, nil
	}
	if err != nil {
		return nil, time.Time{}, false, fmt.Errorf("auth: find session: %w", err)
	}
	s.mem.Keep(g, token, storedSession{b, expiry})
	return b, time.Unix(expiry, 0), true, nil
}

// CommitCtx inserts or replaces a session.
func (s *DBStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	_, err := s.db.Exec(ctx, `INSERT INTO sessions (token, data, expiry) VALUES (?, ?, ?)
		ON CONFLICT (token) DO UPDATE SET data = excluded.data, expiry = excluded.expiry`, token, b, expiry.Unix())
	s.mem.Forget(token)
	if err != nil {
		return fmt.Errorf("auth: commit session: %w", err)
	}
	return nil
}

// DeleteCtx removes a session; a missing one is fine.
func (s *DBStore) DeleteCtx(ctx context.Context, token string) error {
	_, err := s.db.Exec(ctx, "DELETE FROM sessions WHERE token = ?", token)
	s.mem.Forget(token)
	if err != nil {
		return fmt.Errorf("auth: delete session: %w", err)
	}
	return nil
}

// Revoke deletes a session whose copy in the shared store (Redis) could
// not be deleted, and lists it in session_revocations until it would be
// idle too long to sign in, so that Service refuses that copy when Redis
// answers again (on any instance).
func (s *DBStore) Revoke(ctx context.Context, token string) error {
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM sessions WHERE token = ?", token); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO session_revocations (token, expiry) VALUES (?, ?) ON CONFLICT (token) DO NOTHING",
			token, s.now().Add(IdleTimeout).Unix())
		return err
	})
	s.mem.Forget(token)
	if err != nil {
		return fmt.Errorf("auth: revoke session: %w", err)
	}
	return nil
}

// Find implements scs.Store.
func (s *DBStore) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

// Commit implements scs.Store.
func (s *DBStore) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}

// Delete implements scs.Store.
func (s *DBStore) Delete(token string) error { return s.DeleteCtx(context.Background(), token) }

// Cleanup deletes expired sessions (and revocations) and returns how many
// sessions.
func (s *DBStore) Cleanup(ctx context.Context) (int64, error) {
	res, err := s.db.Exec(ctx, "DELETE FROM sessions WHERE expiry <= ?", s.now().Unix())
	if err != nil {
		return 0, fmt.Errorf("auth: session cleanup: %w", err)
	}
	if _, err := s.db.Exec(ctx, "DELETE FROM session_revocations WHERE expiry <= ?", s.now().Unix()); err != nil {
		return 0, fmt.Errorf("auth: session cleanup: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// RunCleanup calls Cleanup every interval until ctx is done.
func (s *DBStore) RunCleanup(ctx context.Context, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := s.Cleanup(ctx); err != nil && ctx.Err() == nil {
				log.Warn("session cleanup", "err", err)
			} else if n > 0 {
				log.Debug("session cleanup", "deleted", n)
			}
		}
	}
}

// Guard bounds calls to a shared store (redisx.Client implements it): Do
// gives a call's context, or false while the store is skipped after a
// failure; Fail records a call's error and reports whether it was one.
type Guard interface {
	Do(ctx context.Context) (context.Context, context.CancelFunc, bool)
	Fail(op string, err error) bool
}

// fallbackStore keeps sessions in the database, the truth, and a copy in a
// shared store (Redis) that answers the requests: a session is written to
// both, read from Redis, and read from the database when Redis does not
// have it (restarted empty, or evicted; then it is put back) or does not
// answer. So neither a Redis outage, nor a slow Redis call under load, nor
// a Redis restart without persistence signs anybody out, and no request
// with a session cookie fails because Redis is down. A deleted session is
// revoked in the database (DBStore.Revoke), which every signed-in request
// checks (Service.loadUser): a copy Redis still holds (deleted while it was
// down, or put back by a read that raced the delete) is refused there and
// removed. Calls to Redis go through the guard, if any: bounded, logged by
// it, and skipped at once while Redis is down.
type fallbackStore struct {
	primary scs.CtxStore
	db      *DBStore
	guard   Guard // nil: calls are bounded only by the client's own timeouts
	log     *slog.Logger
}

var _ scs.CtxStore = (*fallbackStore)(nil)

// shared runs call on the shared store through the guard; false: it was
// skipped or failed (the guard logs it; without one, it is logged here).
func (s *fallbackStore) shared(ctx context.Context, op string, call func(ctx context.Context) error) bool {
	if s.guard == nil {
		err := call(ctx)
		if err != nil {
			s.log.WarnContext(ctx, "session store: "+op+" failed; the database takes over", "err", err)
		}
		return err == nil
	}
	dctx, cancel, ok := s.guard.Do(ctx)
	if !ok {
		return false
	}
	defer cancel()
	err := call(dctx)
	return !s.guard.Fail("session "+op, err) && err == nil
}

// FindCtx implements scs.CtxStore.
func (s *fallbackStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var b []byte
	var found bool
	up := s.shared(ctx, "find", func(ctx context.Context) (err error) {
		b, found, err = s.primary.FindCtx(ctx, token)
		return err
	})
	if up && found {
		return b, true, nil
	}
	b, expiry, found, err := s.db.find(ctx, token)
	if err != nil || !found {
		return nil, false, err
	}
	if up { // Redis answers but lost it: the next request finds it there
		s.shared(ctx, "refill", func(ctx context.Context) error { return s.primary.CommitCtx(ctx, token, b, expiry) })
	}
	return b, true, nil
}

// CommitCtx implements scs.CtxStore: the database, then Redis's copy. A
// copy that cannot be written leaves the one Redis may hold older; a read
// that finds it serves the session as it was (a sign-in's new token, which
// only this write knows, is found in the database).
func (s *fallbackStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	if err := s.db.CommitCtx(ctx, token, b, expiry); err != nil {
		return err
	}
	s.shared(ctx, "commit", func(ctx context.Context) error { return s.primary.CommitCtx(ctx, token, b, expiry) })
	return nil
}

// DeleteCtx implements scs.CtxStore: revoked in the database, then deleted
// from Redis. The revocation is what makes it final: a copy left in Redis
// (it was down, or a read put one back meanwhile) is refused when it is
// next used.
func (s *fallbackStore) DeleteCtx(ctx context.Context, token string) error {
	if err := s.db.Revoke(ctx, token); err != nil {
		return err
	}
	s.shared(ctx, "delete", func(ctx context.Context) error { return s.primary.DeleteCtx(ctx, token) })
	return nil
}

// storeKey is a session token as the store keeps it (scs's HashTokenInStore).
func storeKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Find implements scs.Store.
func (s *fallbackStore) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

// Commit implements scs.Store.
func (s *fallbackStore) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}

// Delete implements scs.Store.
func (s *fallbackStore) Delete(token string) error { return s.DeleteCtx(context.Background(), token) }
