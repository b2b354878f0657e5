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

// fallbackStore keeps sessions in a shared store (Redis) and, when that
// fails, in the database: a request with a session cookie never fails
// because Redis is down. A session written during an outage is in the
// database; Find looks there when Redis fails or does not have the token,
// so it lasts past the outage. A session only in an unreachable Redis is
// absent: its user is signed out and may sign in again.
type fallbackStore struct {
	primary scs.CtxStore
	db      *DBStore
	log     *slog.Logger
}

var _ scs.CtxStore = (*fallbackStore)(nil)

// FindCtx implements scs.CtxStore.
func (s *fallbackStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	b, ok, err := s.primary.FindCtx(ctx, token)
	if err == nil && ok {
		return b, true, nil
	}
	if err != nil {
		s.log.DebugContext(ctx, "session store: falling back to the database", "err", err)
	}
	return s.db.FindCtx(ctx, token)
}

// CommitCtx implements scs.CtxStore.
func (s *fallbackStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	if err := s.primary.CommitCtx(ctx, token, b, expiry); err != nil {
		s.log.WarnContext(ctx, "session store: committing to the database", "err", err)
		return s.db.CommitCtx(ctx, token, b, expiry)
	}
	return nil
}

// DeleteCtx implements scs.CtxStore: from both. With Redis down the
// session's copy there (if any) outlives the cookie the browser drops; it
// expires with its lifetime.
func (s *fallbackStore) DeleteCtx(ctx context.Context, token string) error {
	if err := s.primary.DeleteCtx(ctx, token); err != nil {
		s.log.WarnContext(ctx, "session store: delete failed", "err", err)
	}
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
