package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/alexedwards/scs/v2"

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
}

// NewDBStore returns the store; call Cleanup periodically (RunCleanup does).
func NewDBStore(d *db.DB) *DBStore { return &DBStore{db: d, now: time.Now} }

var (
	_ scs.Store    = (*DBStore)(nil)
	_ scs.CtxStore = (*DBStore)(nil)
)

// FindCtx returns the data of an unexpired session.
func (s *DBStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var b []byte
	err := db.Scan(s.db.QueryRow(ctx, "SELECT data FROM sessions WHERE token = ? AND expiry > ?", token, s.now().Unix()), &b)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("auth: find session: %w", err)
	}
	return b, true, nil
}

// CommitCtx inserts or replaces a session.
func (s *DBStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	_, err := s.db.Exec(ctx, `INSERT INTO sessions (token, data, expiry) VALUES (?, ?, ?)
		ON CONFLICT (token) DO UPDATE SET data = excluded.data, expiry = excluded.expiry`, token, b, expiry.Unix())
	if err != nil {
		return fmt.Errorf("auth: commit session: %w", err)
	}
	return nil
}

// DeleteCtx removes a session; a missing one is fine.
func (s *DBStore) DeleteCtx(ctx context.Context, token string) error {
	if _, err := s.db.Exec(ctx, "DELETE FROM sessions WHERE token = ?", token); err != nil {
		return fmt.Errorf("auth: delete session: %w", err)
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

// Cleanup deletes expired sessions and returns how many.
func (s *DBStore) Cleanup(ctx context.Context) (int64, error) {
	res, err := s.db.Exec(ctx, "DELETE FROM sessions WHERE expiry <= ?", s.now().Unix())
	if err != nil {
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

// fallbackStore keeps sessions in a shared store (Redis) and, when that
// fails, in the database: a request with a session cookie never fails
// because Redis is down. A session written during an outage is in the
// database; Find looks there when Redis fails or does not have the token,
// so it lasts past the outage. A session only in an unreachable Redis is
// absent: its user is signed out and may sign in again. Calls to Redis go
// through the guard, if any: bounded, logged by it, and skipped at once
// while Redis is down.
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
	if s.shared(ctx, "find", func(ctx context.Context) (err error) {
		b, found, err = s.primary.FindCtx(ctx, token)
		return err
	}) && found {
		return b, true, nil
	}
	return s.db.FindCtx(ctx, token)
}

// CommitCtx implements scs.CtxStore.
func (s *fallbackStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	if s.shared(ctx, "commit", func(ctx context.Context) error { return s.primary.CommitCtx(ctx, token, b, expiry) }) {
		return nil
	}
	return s.db.CommitCtx(ctx, token, b, expiry)
}

// DeleteCtx implements scs.CtxStore: from both. With Redis down the
// session's copy there (if any) outlives the cookie the browser drops; it
// expires with its lifetime.
func (s *fallbackStore) DeleteCtx(ctx context.Context, token string) error {
	s.shared(ctx, "delete", func(ctx context.Context) error { return s.primary.DeleteCtx(ctx, token) })
	return s.db.DeleteCtx(ctx, token)
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
