// Package app is tutti's composition root: Main opens the database, the
// cache, the bus and the file store, builds the shared services (site,
// accounts, jobs, mail, live streams, versions), builds and mounts every app
// of Modules, runs the HTTP server and the workers, and shuts them down in
// order. The command line (`tutti serve`, seed, load, jobs, ...) is here too.
//
// Apps never import it: an app is a module (internal/module) and receives
// the core services as a module.Core; adding an app is one line in Modules.
// Tests use it whole: apptest starts a Main on 127.0.0.1:0 with a temporary
// SQLite file or a fresh PostgreSQL schema, and drives it over HTTP.
package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/alexedwards/scs/goredisstore"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/live"
	"github.com/tutti-dev/tutti/internal/mail"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/memlimit"
	"github.com/tutti-dev/tutti/internal/module"
	"github.com/tutti-dev/tutti/internal/ops"
	"github.com/tutti-dev/tutti/internal/pace"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/pubsub"
	"github.com/tutti-dev/tutti/internal/ratelimit"
	"github.com/tutti-dev/tutti/internal/redisx"
	"github.com/tutti-dev/tutti/internal/room"
	"github.com/tutti-dev/tutti/internal/version"
	"github.com/tutti-dev/tutti/internal/web"
)

// Main is one running tutti process.
type Main struct {
	Config   config.Config
	Log      *slog.Logger
	DB       *db.DB
	Bus      *pubsub.Bus
	Live     *live.Group    // every app's live streams, ended at shutdown
	Redis    *redis.Client  // nil unless --redis-url is set
	Shared   *redisx.Client // the guarded Redis of the cache tier, versions and limits; nil without Redis
	Cache    *cache.Cache
	Objects  *cache.Objects // the decoded values, in --cache-bytes with Cache (objcache)
	Site     *web.Site
	Registry *prometheus.Registry
	Handler  http.Handler
	Files    files.Storage
	Media    *media.Service // uploads kept by the apps, derived by jobs
	Auth     *auth.Service
	Apps     []module.App     // the built apps, in the order of Modules (apptest.AppOf finds one by type)
	Jobs     *jobs.Queue      // background work and the outbox
	Mail     *mail.Mailer     // outgoing mail, fed from the outbox
	Pay      pay.Gateway      // the payment gateway
	Ops      *ops.Ops         // the operators' pages
	Pace     *pace.Controller // the health the waiting rooms admit by (internal/pace), fed by the full lane

	modules []module.Module // Apps' modules, in the same order
	srv     *http.Server
	proxies web.Proxies // --trusted-proxies: the chain's and the front's
	ln      net.Listener
	site    atomic.Value // string: answersOn, set by Listen (read by mail at any time)
	flight  *web.Flight  // --flight-dir: traces of slow requests

	closeTier, closeVersions func() // the Redis tier's, if any
}

// New opens the database, migrates it and builds the handler; it does not listen.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (*Main, error) {
	m := &Main{Config: cfg, Log: log, Registry: prometheus.NewRegistry(), Live: &live.Group{Max: live.MaxStreams()}}
	d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	m.DB = d
	d.SetLog(log, web.RequestID)
	if cfg.DatabaseReplicaURL != "" {
		if err := d.AddReplica(ctx, cfg.DatabaseReplicaURL); err != nil {
			d.Close()
			return nil, err
		}
	}
	if err := d.Migrate(ctx, log, Migrations()...); err != nil {
		d.Close()
		return nil, err
	}
	if m.Bus, err = pubsub.OpenPrefix(cfg.NATSURL, cfg.NATSPrefix, filepath.Join(cfg.DataDir, "nats"), log); err != nil {
		d.Close()
		return nil, err
	}
	// One --cache-bytes budget: the byte cache's share, and the decoded
	// values' (objcache: see cacheBudget).
	localBytes, objectBytes := cacheBudget(cfg)
	log.Info("in-process cache", "MiB", (localBytes+objectBytes)>>20, "objects_MiB", objectBytes>>20)
	m.Objects = cache.NewObjects(objectBytes)
	local := cache.NewLocal(localBytes)
	m.Cache = cache.New(local)
	own := m.Cache // this process's own, whatever the shared tier
	var versions version.Versions = version.For(d)
	limiter := ratelimit.LocalMaker
	var mailLimiter ratelimit.Maker // the process's own, unless shared
	if cfg.RedisURL != "" {
		if versions, limiter, err = m.openRedis(ctx, local); err != nil {
			m.Close()
			return nil, err
		}
		mailLimiter = limiter
	}
	m.Jobs = jobs.New(d, jobs.Options{Bus: m.Bus, Log: log})
	if m.Mail, err = mail.New(mail.Config{SMTPURL: cfg.SMTPURL, From: cfg.MailFrom, PerSecond: float64(cfg.MailPerSecond), Limiter: mailLimiter,
		Dir: filepath.Join(cfg.DataDir, "mail"), Log: log, BaseURL: cfg.BaseURL, Site: m.answersOn}, m.Jobs); err != nil {
		m.Close()
		return nil, err
	}
	assets, err := coreAssets()
	if err != nil {
		m.Close()
		return nil, err
	}
	m.Site = &web.Site{Assets: assets, Log: log, Apps: Apps()}
	if _, shared := versions.(*version.Redis); shared {
		m.Site.HotContext = version.WithMemo // a missed hot page's handler reads its stamp once
	}
	if m.Files, err = openFiles(ctx, cfg, log); err != nil {
		m.Close()
		return nil, err
	}
	// One budget for the decoding of every uploaded picture of the process.
	images := files.NewImageBudget(files.DefaultImageBudget)
	// media: uploads of every app; its derive job runs on m.Jobs.
	if m.Media, err = media.New(media.Deps{DB: d, Files: m.Files, Jobs: m.Jobs, Log: log, TempDir: filepath.Join(cfg.DataDir, "tmp"), Objects: m.Objects}); err != nil {
		m.Close()
		return nil, err
	}
	ad := auth.Deps{DB: d, Cache: m.Cache, Site: m.Site, Log: log, Files: m.Files, Images: images, Media: m.Media, Limiter: limiter,
		SecureCookies: strings.HasPrefix(cfg.BaseURL, "https://")}
	if cfg.SessionStore == "redis" {
		// Session tokens reach the store hashed (auth sets HashTokenInStore),
		// and keys expire with their sessions.
		ad.SessionStore = goredisstore.NewWithPrefix(m.Redis, cfg.RedisPrefix+"session:")
		ad.SessionGuard = m.Shared
	}
	m.Auth, err = auth.New(ad)
	if err != nil {
		m.Close()
		return nil, err
	}
	m.Auth.EnableMail(auth.MailDeps{Jobs: m.Jobs, Mail: m.Mail})
	m.Ops = ops.New(ops.Deps{DB: d, Site: m.Site, Jobs: m.Jobs, Mail: m.Mail})
	if !cfg.RateLimits {
		m.Auth.SetLimits(auth.Limits{})
		log.Warn("rate limits are off (--rate-limits=false): for load tests only")
	}
	if m.Pay, err = pay.Open(cfg.PaymentURL, d); err != nil {
		m.Close()
		return nil, err
	}
	if !pay.TakesCardNumbers(m.Pay) {
		log.Warn("payment-url: a live Stripe key needs Stripe.js's card form, which the payment pages do not have yet: every card payment will be refused (nothing charged)")
	}
	m.Pace = pace.New()
	core := module.Core{Config: cfg, Log: log, DB: d, Cache: m.Cache, Local: own, Objects: m.Objects, Site: m.Site, Bus: m.Bus,
		Live: m.Live, Files: m.Files, Images: images, Media: m.Media, Versions: versions, Limiter: limiter, Auth: m.Auth,
		Jobs: m.Jobs, Mail: m.Mail, Pay: m.Pay, Rooms: m.openRooms, Listening: m.listening}
	for _, mod := range Modules() {
		c := core
		if c.Assets, err = mod.Assets(); err != nil {
			m.Close()
			return nil, fmt.Errorf("%s: %w", mod.Name, err)
		}
		a, err := mod.New(ctx, c)
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("%s: %w", mod.Name, err)
		}
		m.Apps, m.modules = append(m.Apps, a), append(m.modules, mod)
		if h, ok := a.(module.AccountHook); ok {
			m.Auth.OnDelete(h.ForgetAccount, h.AccountForgotten)
		}
	}
	m.registerMetrics()
	if m.proxies, err = web.ParseProxies(cfg.TrustedProxies); err != nil {
		m.Close()
		return nil, err
	}
	if cfg.FlightDir != "" {
		if m.flight, err = web.StartFlight(cfg.FlightDir, log); err != nil {
			m.Close()
			return nil, err
		}
	}
	m.Handler = m.routes()
	return m, nil
}

// openRooms makes waiting rooms that let up to rate in per second
// (module.Core.Rooms), as the site's health allows (m.Pace): their slots
// and clock in Redis in cluster mode, else in this process; tickets
// signed with the site's "room" key.
func (m *Main) openRooms(ctx context.Context, rate int) (*room.Rooms, error) {
	key, err := m.DB.SiteKey(ctx, "room")
	if err != nil {
		return nil, err
	}
	var st room.Store = room.NewLocal()
	if m.Shared != nil {
		st = room.NewRedis(m.Shared)
	}
	rs, err := room.New(st, key, rate, rate)
	if err != nil {
		return nil, err
	}
	rs.Health = m.Pace
	return rs, nil
}

// openFiles is the upload storage: S3 with --storage-url, else the data
// directory's uploads/.
func openFiles(ctx context.Context, cfg config.Config, log *slog.Logger) (files.Storage, error) {
	if cfg.StorageURL == "" {
		return files.NewLocal(filepath.Join(cfg.DataDir, "uploads"), files.Prefix)
	}
	sc, err := files.ParseS3URL(cfg.StorageURL)
	if err != nil {
		return nil, err
	}
	log.Info("uploads in S3", "at", sc.String()) // without the credentials
	return files.NewS3(ctx, sc, files.Prefix)
}

// openRedis connects to the shared Redis and makes it the shared tier:
// m.Cache becomes local in front of Redis, and it returns the versions and
// the rate limits kept there.
func (m *Main) openRedis(ctx context.Context, local *cache.Local) (version.Versions, ratelimit.Maker, error) {
	var err error
	if m.Redis, err = dialRedis(ctx, m.Config.RedisURL); err != nil {
		return nil, nil, err
	}
	m.Shared = redisx.New(m.Redis, m.Config.RedisPrefix, m.Log)
	t, err := cache.NewTiered(local, cache.NewRedis(m.Shared), m.Bus, "tutti.cache.delete."+m.Config.RedisPrefix)
	if err != nil {
		return nil, nil, err
	}
	m.Cache, m.closeTier = cache.New(t), t.Close
	v := version.NewRedis(m.Shared)
	m.closeVersions = v.Close
	return v, ratelimit.RedisMaker(m.Shared), nil
}

// dialRedis connects to the Redis at url and checks that it answers. Its
// deadlines are short: a Redis that hangs costs a request little.
func dialRedis(ctx context.Context, url string) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis-url: %w", err)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout, opts.PoolTimeout = time.Second, time.Second, time.Second, time.Second
	opts.MaxRetries, opts.MinRetryBackoff, opts.MaxRetryBackoff = 1, time.Millisecond, 10*time.Millisecond
	opts.DialerRetries = 1 // a Redis that is down fails at once: callers fall back
	opts.ContextTimeoutEnabled = true
	c := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("redis %s: %w", opts.Addr, err)
	}
	return c, nil
}

func (m *Main) registerMetrics() {
	reg := m.Registry
	// The scheduler's metrics add how long runnable goroutines waited
	// for a core (go_sched_latencies_seconds): a server short of CPU.
	reg.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsScheduler)), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tutti_cache_hits_total", Help: "Cache hits."},
		func() float64 { h, _ := m.Cache.Stats(); return float64(h) }))
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tutti_cache_misses_total", Help: "Cache misses."},
		func() float64 { _, mi := m.Cache.Stats(); return float64(mi) }))
	if m.Shared != nil {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tutti_redis_failures_total",
			Help: "Redis commands of the cache, versions and limits that failed or timed out (each fell back)."},
			func() float64 { return float64(m.Shared.Failures()) }))
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tutti_redis_skipped_total",
			Help: "Redis commands not tried during the pause after a failure (each fell back)."},
			func() float64 { return float64(m.Shared.Skipped()) }))
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tutti_live_streams", Help: "Live streams (Server-Sent Events) open, every app's."},
		func() float64 { return float64(m.Live.Streams()) }))
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tutti_db_statements_total", Help: "SQL statements run."},
		func() float64 { return float64(m.DB.Queries()) }))
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tutti_db_transactions_total", Help: "Write transactions begun (BEGIN ... COMMIT), requests' and batches'."},
		func() float64 { return float64(m.DB.Transactions()) }))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tutti_db_connections_in_use", Help: "Database connections in use (read + write pools)."},
		func() float64 { r, w := m.DB.Stats(); return float64(r.InUse + w.InUse) }))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tutti_db_connections_open", Help: "Open database connections."},
		func() float64 { r, w := m.DB.Stats(); return float64(r.OpenConnections + w.OpenConnections) }))
	if _, err := memlimit.PeakResident(os.DirFS("/")); err == nil { // Linux
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tutti_process_peak_resident_memory_bytes",
			Help: "Peak resident memory since the process started (VmHWM); tutti load reports it."},
			func() float64 { n, _ := memlimit.PeakResident(os.DirFS("/")); return float64(n) }))
	}
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tutti_db_replica_reads_total", Help: "Lag-tolerant reads served by the read replica."},
		func() float64 { n, _, _ := m.DB.ReplicaStats(); return float64(n) }))
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tutti_db_replica_fallbacks_total", Help: "Lag-tolerant reads sent to the primary: the replica down or failing, or behind the version wanted."},
		func() float64 { _, f, b := m.DB.ReplicaStats(); return float64(f + b) }))
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tutti_db_wait_total", Help: "Times a query waited for a pooled connection."},
		func() float64 { r, w := m.DB.Stats(); return float64(r.WaitCount + w.WaitCount) }))
	for pool, stats := range map[string]func() sql.DBStats{
		"read":  func() sql.DBStats { r, _ := m.DB.Stats(); return r },
		"write": func() sql.DBStats { _, w := m.DB.Stats(); return w },
	} {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tutti_db_wait_seconds_total",
			Help: "Time queries waited for a pooled connection, by pool (read; write: SQLite's one writer).", ConstLabels: prometheus.Labels{"pool": pool}},
			func() float64 { return stats().WaitDuration.Seconds() }))
	}
}

// The HTTP server's timeouts (and the front's: web.Site.Listener).
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 60 * time.Second
	idleTimeout       = 120 * time.Second
)

// Listen opens the listener on the configured address (":0" picks a port).
func (m *Main) Listen() error {
	ln, err := net.Listen("tcp", m.Config.Addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", m.Config.Addr, err)
	}
	drain := web.NewDrain(0, m.Log)
	m.site.Store(siteAddress(ln.Addr().String()))
	m.ln = m.Site.Listener(ln, web.FrontOptions{ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout: idleTimeout, WriteTimeout: readTimeout, Proxies: m.proxies, Drain: drain})
	m.srv = &http.Server{
		Handler:           m.Handler,
		ConnContext:       web.ConnContext,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(m.Log.Handler(), slog.LevelWarn),
	}
	m.srv.ConnState = drain.ConnState // short of files, idle connections close sooner
	return nil
}

// URL is where clients reach the server: the public base URL when one is
// configured (--base-url: a proxy such as nginx in front), else the
// listener's http://ADDR.
func (m *Main) URL() string {
	if m.Config.BaseURL != "" {
		return strings.TrimRight(m.Config.BaseURL, "/")
	}
	return "http://" + m.Addr()
}

// answersOn is the address the site answers on, http://ADDR, or ""
// before Listen: links in mail that no request began start with it when
// no --base-url is set.
func (m *Main) answersOn() string {
	s, _ := m.site.Load().(string)
	return s
}

// siteAddress is http://addr, an unspecified host (0.0.0.0, ::) as
// localhost.
func siteAddress(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// listening is Addr, or "" before Listen.
func (m *Main) listening() string {
	if m.ln == nil {
		return ""
	}
	return m.Addr()
}

// Addr is the listener's address once listening (host:port).
func (m *Main) Addr() string { return m.ln.Addr().String() }

// Serve serves until ctx is done, then shuts down gracefully within the
// configured deadline.
func (m *Main) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- m.srv.Serve(m.ln) }()
	m.Log.Info("listening", "addr", m.Addr(), "url", m.URL(), "db", m.DB.Dialect, "data", m.Config.DataDir)
	if m.Config.DebugAddr != "" {
		go web.ServeDebug(m.Config.DebugAddr, m.Log)
	}
	if err := m.Jobs.Start(); err != nil {
		return err
	}
	if st := m.Auth.Sessions(); st != nil {
		go st.RunCleanup(ctx, time.Hour, m.Log)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	m.Log.Info("shutting down", "deadline", m.Config.ShutdownTimeout)
	m.Live.Shutdown() // every app's live streams end, so that the server can stop
	for _, a := range m.Apps {
		if s, ok := a.(module.Shutdowner); ok {
			s.Shutdown()
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), m.Config.ShutdownTimeout)
	defer cancel()
	if err := m.srv.Shutdown(sctx); err != nil {
		m.Jobs.Stop(sctx)
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := m.Jobs.Stop(sctx); err != nil { // running jobs finish within the same deadline
		m.Log.Warn("shutdown", "err", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close commits the writes still queued, then releases the bus and the database.
func (m *Main) Close() error {
	m.flight.Stop()
	for i := len(m.Apps) - 1; i >= 0; i-- {
		if c, ok := m.Apps[i].(module.Closer); ok {
			c.Close()
		}
	}
	if m.Jobs != nil { // already stopped by Serve; else at once
		ctx, cancel := context.WithTimeout(context.Background(), m.Config.ShutdownTimeout)
		m.Jobs.Stop(ctx)
		cancel()
	}
	m.DB.CloseBatch()                                          // the writes still queued commit before the bus goes
	for _, f := range []func(){m.closeTier, m.closeVersions} { // they leave the bus: before it closes
		if f != nil {
			f()
		}
	}
	var err error
	if m.Bus != nil {
		err = m.Bus.Close()
	}
	if m.Redis != nil {
		err = errors.Join(err, m.Redis.Close())
	}
	return errors.Join(err, m.DB.Close())
}
