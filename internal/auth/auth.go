package auth

import (
	"context"
	"embed"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/ratelimit"
	"github.com/tutti-dev/tutti/internal/web"
)

//go:embed migrations
var migrations embed.FS

// Migrations are the users and sessions tables. They must run before every
// app's migrations: apps reference users(id).
var Migrations = db.EmbeddedMigrations("auth", migrations)

// Session settings: an absolute lifetime, and an idle timeout enforced by a
// "seen" stamp refreshed at most once per touchEvery, so that a signed-in
// page view does not cost a database write.
const (
	CookieName     = "tutti_session"
	UserCookieName = "tutti_user" // the username, readable by the page's script
	Lifetime       = 30 * 24 * time.Hour
	IdleTimeout    = 7 * 24 * time.Hour
	touchEvery     = time.Hour
	MaxAvatarBytes = files.MaxImageBytes
)

// Deps are the core services auth uses.
type Deps struct {
	DB    *db.DB
	Cache *cache.Cache
	Site  *web.Site
	Log   *slog.Logger
	Files files.Storage // avatars
	// Images bounds the memory that decoding pictures holds at once; share
	// one across the process. nil: a budget of files.DefaultImageBudget.
	Images *files.ImageBudget
	// Media keeps the pictures (internal/media); nil: none can be uploaded.
	Media *media.Service

	// SessionStore keeps sessions; nil: the database (DBStore). Cluster mode
	// passes a Redis store, behind which the database takes over while Redis
	// fails (fallbackStore).
	SessionStore scs.Store
	// SessionGuard, if set, bounds each call to a shared SessionStore and
	// skips it for a moment after a failure (redisx.Client), so that an
	// outage costs a request no wait before the database answers.
	SessionGuard Guard
	// SecureCookies marks cookies Secure on every request (the public URL is
	// https behind a proxy); otherwise only requests that came over https (web.IsHTTPS).
	SecureCookies bool

	// Limits are the rate limits; a nil field takes its default (login 10 a
	// minute per IP and 5 per account, sign-up 5 a minute per IP).
	// ratelimit.Unlimited{} turns one off. SetLimits changes them later.
	Limits Limits
	// Limiter makes the default limits (nil: in process); cluster mode
	// passes the core's, shared through Redis.
	Limiter ratelimit.Maker

	Now func() time.Time // nil: time.Now
}

// Limits are auth's rate limits. Logins count every attempt, per IP and per
// account (a wrong password and a right one alike); sign-ups count valid
// attempts per IP.
type Limits struct {
	LoginPerIP      ratelimit.Limiter
	LoginPerAccount ratelimit.Limiter
	SignupPerIP     ratelimit.Limiter
	// ResetPerIP bounds password-reset requests (refused past it);
	// ResetPerAddress bounds the mails to one address: past it the answer is
	// the same as ever but no mail goes, so nobody is mail-bombed through
	// tutti and nothing tells whether the address has an account.
	ResetPerIP, ResetPerAddress ratelimit.Limiter
	EmailPerUser                ratelimit.Limiter // e-mail changes a user asks for
}

// DefaultLimits are the limits of a running site, in process.
func DefaultLimits() Limits { return LimitsFrom(ratelimit.LocalMaker) }

// LimitsFrom are the limits of a running site, made by mk.
func LimitsFrom(mk ratelimit.Maker) Limits {
	return Limits{
		LoginPerIP:      mk("login-ip", 6*time.Second, 10),
		LoginPerAccount: mk("login-account", 12*time.Second, 5),
		SignupPerIP:     mk("signup-ip", 12*time.Second, 5),
		ResetPerIP:      mk("reset-ip", 12*time.Second, 5),      // 5 a minute
		ResetPerAddress: mk("reset-address", 20*time.Minute, 3), // 3 an hour
		EmailPerUser:    mk("email-user", 12*time.Minute, 5),    // 5 an hour
	}
}

// fields are the limiters of l, in one list for what treats them alike.
func (l *Limits) fields() []*ratelimit.Limiter {
	return []*ratelimit.Limiter{&l.LoginPerIP, &l.LoginPerAccount, &l.SignupPerIP, &l.ResetPerIP, &l.ResetPerAddress, &l.EmailPerUser}
}

// SetLimits replaces the rate limits, safely while serving (tests and load
// runs); a nil field means no limit.
func (s *Service) SetLimits(l Limits) {
	for _, p := range l.fields() {
		if *p == nil {
			*p = ratelimit.Unlimited{}
		}
	}
	s.limits.Store(&l)
}

func (s *Service) lim() *Limits { return s.limits.Load() }

// TxHook runs inside the account-deletion transaction, before the users row
// goes. It may run more than once (a busy transaction is retried), so it must
// have no effect outside tx.
type TxHook func(ctx context.Context, tx *db.Tx, userID int64) error

// Service is the platform's accounts.
type Service struct {
	Deps
	store      *Store
	sessions   *DBStore // the database's sessions (the fallback of a Redis store)
	revocable  bool     // sessions in Redis: check session_revocations (fallbackStore)
	sm, smTLS  *scs.SessionManager
	dummyHash  func() string
	limits     atomic.Pointer[Limits]
	mu         sync.Mutex
	txHooks    []TxHook
	afterHooks []func(ctx context.Context, userID int64)
	mailing    *mailing // nil until EnableMail: no reset, no e-mail change
	images     *files.ImageBudget
}

// New builds the service.
func New(d Deps) (*Service, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Limiter == nil {
		d.Limiter = ratelimit.LocalMaker
	}
	def := LimitsFrom(d.Limiter)
	defs := def.fields()
	for i, p := range d.Limits.fields() { // a limit not given is the default
		if *p == nil {
			*p = *defs[i]
		}
	}
	s := &Service{Deps: d, store: &Store{db: d.DB, now: d.Now, people: peopleIndex(d.DB.Dialect)}, images: d.Images}
	if s.images == nil {
		s.images = files.NewImageBudget(files.DefaultImageBudget)
	}
	s.SetLimits(d.Limits)
	if d.Media != nil && d.Files != nil {
		d.Media.Register(avatarKind(s.images, s.onAvatarReady))
	}
	s.sessions = NewDBStore(d.DB)
	s.sessions.now = d.Now
	if d.SessionStore == nil {
		s.SessionStore = s.sessions
		if d.DB.Dialect == db.SQLite { // embedded mode: one process writes them all (cache.Memo)
			s.sessions.mem = cache.NewMemo[string, storedSession](100_000, memoFor)
			s.store.mem = cache.NewMemo[int64, account](100_000, memoFor)
			d.DB.OnOthers(s.Forget) // another process's writes: forget them all
		}
	} else if cs, ok := d.SessionStore.(scs.CtxStore); ok {
		// Redis: the database takes over while it fails.
		s.SessionStore = &fallbackStore{primary: cs, db: s.sessions, guard: d.SessionGuard, log: d.Log}
		s.revocable = true
	} else {
		s.sessions = nil
	}
	s.sm = s.newManager(d.SecureCookies)
	s.smTLS = s.newManager(true)
	// Logins for unknown accounts compare against this hash, so that they
	// take as long as a wrong password.
	s.dummyHash = sync.OnceValue(func() string {
		h, err := HashPassword("not a password" + time.Now().String())
		if err != nil {
			panic(err)
		}
		return h
	})
	return s, nil
}

func (s *Service) newManager(secure bool) *scs.SessionManager {
	sm := scs.New()
	sm.Store = s.SessionStore
	sm.Lifetime = Lifetime
	sm.HashTokenInStore = true // a leaked sessions table holds no usable token
	sm.Codec = sessionCodec{}
	sm.Cookie.Name = CookieName
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Path = "/"
	sm.Cookie.Persist = true
	sm.Cookie.Secure = secure
	sm.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) {
		if r.Context().Err() != nil {
			// The client left while its session was saved (scs saves just
			// before the handler's answer, which still follows): answering
			// here too would write a second status. Nobody is listening.
			s.Log.DebugContext(r.Context(), "session: client gone", "err", err)
			return
		}
		if errors.Is(err, errSessionData) {
			s.dropDamagedSession(w, r, err)
			return
		}
		s.Site.Error(w, r, err)
	}
	return sm
}

// manager is the session manager for r: the Secure-cookie one over https.
func (s *Service) manager(r *http.Request) *scs.SessionManager {
	if web.IsHTTPS(r) {
		return s.smTLS
	}
	return s.sm
}

// Sessions is the database session store (with Redis, its fallback; nil with
// another store that cannot fall back), for its periodic Cleanup.
func (s *Service) Sessions() *DBStore { return s.sessions }

// memoFor is how long embedded mode keeps a user or a session in memory
// (cache.Memo) at most: longer than a runner's think between two pages
// (the seed's 15-60 s), so that a rush's wizard reads each user and
// session from the database once (with users kept 30 s, their reads were
// 8 % of the server's core in the burst's steady part). Another process's
// change (`tutti role grant`) shows within a second
// (db.OnOthers).
const memoFor = 5 * time.Minute

// Forget drops the users and sessions held in memory: for a write of the
// users table made outside this package (the race's removal of its
// rehearsals' runners). A nil Service (an app built without accounts, in
// tests) holds nothing.
func (s *Service) Forget() {
	if s == nil {
		return
	}
	s.store.changed()
	if s.sessions != nil {
		s.sessions.mem.ForgetAll()
	}
}

// OnDelete registers hooks for account deletion: inTx runs in the deleting
// transaction before the users row goes (see TxHook), after runs once it
// committed. Either may be nil. Register at start-up.
func (s *Service) OnDelete(inTx func(ctx context.Context, tx *db.Tx, userID int64) error, after func(ctx context.Context, userID int64)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inTx != nil {
		s.txHooks = append(s.txHooks, inTx)
	}
	if after != nil {
		s.afterHooks = append(s.afterHooks, after)
	}
}

// User loads a user by id (errs.ErrNotFound if there is none).
func (s *Service) User(ctx context.Context, id int64) (*User, error) {
	a, err := s.store.byID(ctx, id)
	if err != nil {
		return nil, err
	}
	return &a.User, nil
}

// ByUsername loads a user by username, case-insensitively.
func (s *Service) ByUsername(ctx context.Context, name string) (*User, error) {
	a, err := s.store.byUsername(ctx, name)
	if err != nil {
		return nil, err
	}
	return &a.User, nil
}

// Create validates in and makes the account; bad or taken fields come back
// as errs.Fields. It does not sign in (see SignupAndLogin).
func (s *Service) Create(ctx context.Context, in Signup) (*User, error) {
	if f := in.Validate(); len(f) > 0 {
		return nil, errs.Fields(f)
	}
	h, err := hashPassword(ctx, in.Password)
	if err != nil {
		return nil, err
	}
	return s.CreateWithHash(ctx, in, h)
}

// CreateWithHash is Create with a precomputed password hash (from
// HashPassword), for seeds that make many users; in.Password is ignored.
func (s *Service) CreateWithHash(ctx context.Context, in Signup, hash string) (*User, error) {
	in.Password = strings.Repeat("x", MinPassword) // validated elsewhere
	if f := in.Validate(); len(f) > 0 {
		return nil, errs.Fields(f)
	}
	return s.store.create(ctx, in, hash)
}

// Delete removes the account, running the apps' hooks (see OnDelete) and
// deleting its avatar. It does not touch the request's session.
func (s *Service) Delete(ctx context.Context, id int64) error {
	s.mu.Lock()
	tx, after := s.txHooks, s.afterHooks
	s.mu.Unlock()
	avatar, err := s.store.delete(ctx, id, tx)
	if err != nil {
		return err
	}
	ctx = context.WithoutCancel(ctx)
	for _, h := range after {
		h(ctx, id)
	}
	if avatar != "" && s.Files != nil {
		if err := s.Files.Delete(ctx, avatar); err != nil {
			s.Log.Warn("delete avatar", "key", avatar, "err", err)
		}
	}
	if s.Media != nil {
		if err := s.Media.Forget(ctx, AvatarKind, id); err != nil {
			s.Log.Warn("delete avatar uploads", "user", id, "err", err)
		}
	}
	return nil
}
