// Package config builds tutti's configuration from flags and TUTTI_* environment
// variables (flags win). A secret may also come from a file named by the
// variable with a _FILE suffix, e.g. TUTTI_DATABASE_URL_FILE.
//
// Config is a plain value, read once at start and never changed (no
// globals). Apps read it from module.Core when they are built and pass what
// they need on in their own Deps. A setting of the core is a field here,
// with its flag, variable and default (and a row in docs/configuration.md's
// table); a setting of one app is the app's own (module.Module.Flags),
// declared through Settings and kept in Apps.
package config

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/mail"
	"github.com/tutti-dev/tutti/internal/memlimit"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/web"
)

// Config is every setting of a tutti process. It is a value: nothing global.
type Config struct {
	Addr               string        // listen address
	DataDir            string        // SQLite database, uploads, embedded stores
	DatabaseURL        string        // postgres://... for PostgreSQL; empty for SQLite in DataDir
	DatabaseReplicaURL string        // postgres://... of a streaming replica for reads that tolerate lag; empty for none
	NATSURL            string        // nats://... of a NATS cluster; empty for NATS embedded in the process
	NATSPrefix         string        // begins every NATS subject tutti uses ("" or ending with '.')
	RedisURL           string        // redis://... of the shared Redis; empty for none
	RedisPrefix        string        // begins every key tutti keeps in Redis
	StorageURL         string        // s3://ACCESS:SECRET@host:port/bucket for uploads in S3; empty for DataDir/uploads
	SessionStore       string        // where sessions live: "db" or "redis" (Validate fills it in)
	LogLevel           slog.Level    // debug, info, warn, error
	LogFormat          string        // text or json
	Demo               bool          // load the demo data set on start
	ShutdownTimeout    time.Duration // graceful shutdown deadline
	CacheSize          int           // in-process cache capacity in bytes; 0: a quarter of the memory limit, 16 to 256 MiB
	MemoryLimit        string        // Go's soft memory limit: "auto" (half the machine's or the container's memory), "off", or a size
	MaxBodyBytes       int64         // default request body limit
	BaseURL            string        // public URL, for links in mail and calendars; empty: from the request
	DebugAddr          string        // if set, net/http/pprof listens here (keep it on loopback)
	FlightDir          string        // if set, a request over a second writes the last seconds' execution trace here
	RateLimits         bool          // false turns off the login, sign-up and posting limits (load tests)
	SMTPURL            string        // smtp://user:pass@host:port for outgoing mail; empty: .eml files in DataDir/mail
	MailFrom           string        // the From address of outgoing mail
	MailPerSecond      int           // mails the site sends per second (every instance together, through Redis when set)
	TrustedProxies     string        // CIDRs or addresses whose X-Forwarded-For and X-Forwarded-Proto are believed
	PaymentURL         string        // the payment gateway: test:[?decline=R&latency=D] (the built-in stand-in) or stripe://SECRET_KEY@host

	// Apps are the apps' own settings by module name: what each module's
	// Flags declared (module.Module.Flags), parsed. A value with a
	// Validate() error method is checked by Validate. An app missing here
	// (a Config made in Go, not parsed) takes its defaults.
	Apps map[string]any
}

// App is the settings of the app named name (Apps), or nil.
func (c Config) App(name string) any { return c.Apps[name] }

// Default is the configuration of `tutti serve` with nothing set.
func Default() Config {
	return Config{
		Addr:            "127.0.0.1:8080",
		DataDir:         "tutti-data",
		LogLevel:        slog.LevelInfo,
		LogFormat:       "text",
		ShutdownTimeout: 15 * time.Second,
		MemoryLimit:     "auto",
		MaxBodyBytes:    1 << 20,
		RateLimits:      true,
		MailFrom:        mail.DefaultFrom,
		MailPerSecond:   mail.DefaultPerSecond,
		RedisPrefix:     "tutti:",
		PaymentURL:      pay.DefaultURL,
	}
}

// Var describes one setting for docs/configuration.md's table and `tutti help`.
type Var struct{ Flag, Env, Default, Usage string }

// Settings declares settings on a flag set, each with its TUTTI_*
// variable (the flag wins; a secret may come from NAME_FILE), and lists
// them (Vars) for `tutti serve -h` and docs/configuration.md. The core's
// are declared by Flags; an app's by its module's Flags, on the same.
type Settings struct {
	FS     *flag.FlagSet
	Getenv func(string) string
	Vars   []Var
}

// Env is the variable name's value (or its _FILE's contents), else def.
func (s *Settings) Env(name, def string) string {
	if v := s.Getenv(name); v != "" {
		return v
	}
	if f := s.Getenv(name + "_FILE"); f != "" {
		if b, err := os.ReadFile(f); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	return def
}

// String declares a string setting: --flagName, variable envName.
func (s *Settings) String(p *string, flagName, envName, def, usage string) {
	s.FS.StringVar(p, flagName, s.Env(envName, def), usage+" (env "+envName+")")
	s.Vars = append(s.Vars, Var{flagName, envName, def, usage})
}

// Int declares a whole-number setting: --flagName, variable envName (a
// variable that is not a number is the default).
func (s *Settings) Int(p *int, flagName, envName string, def int, usage string) {
	s.FS.IntVar(p, flagName, intFrom(s.Env(envName, ""), def), usage+" (env "+envName+")")
	s.Vars = append(s.Vars, Var{flagName, envName, fmt.Sprint(def), usage})
}

// Flags registers every setting of the core on fs, with defaults taken from
// the environment (getenv) over Default(). After fs.Parse, call Validate.
// The apps' own settings are declared after it (internal/app).
func Flags(fs *flag.FlagSet, c *Config, getenv func(string) string) []Var {
	s := &Settings{FS: fs, Getenv: getenv}
	FlagsOn(s, c)
	return s.Vars
}

// FlagsOn is Flags on s, so that the apps' settings can follow on the same.
func FlagsOn(s *Settings, c *Config) {
	fs := s.FS
	d := Default()
	*c = d
	env, str := s.Env, s.String
	str(&c.Addr, "addr", "TUTTI_ADDR", d.Addr, "listen address")
	str(&c.DataDir, "data-dir", "TUTTI_DATA_DIR", d.DataDir, "data directory: SQLite database, uploads, embedded stores")
	str(&c.DatabaseURL, "database-url", "TUTTI_DATABASE_URL", "", "postgres://... switches to PostgreSQL; empty means SQLite in the data directory")
	str(&c.DatabaseReplicaURL, "database-replica-url", "TUTTI_DATABASE_REPLICA_URL", "", "postgres://... of a streaming replica of the database, for reads that tolerate lag (visitors' cached pages); empty means none")
	str(&c.NATSURL, "nats-url", "TUTTI_NATS_URL", "", "nats://... of a NATS cluster with JetStream; empty means NATS embedded in the process, stored in the data directory")
	str(&c.NATSPrefix, "nats-prefix", "TUTTI_NATS_PREFIX", "", "begins every NATS subject tutti uses, ending with '.' (several sites can share one NATS); empty means none")
	str(&c.RedisURL, "redis-url", "TUTTI_REDIS_URL", "", "redis://[user:password@]host:port/db of the shared Redis (cache tier, versions, rate limits, sessions); empty means none")
	str(&c.RedisPrefix, "redis-prefix", "TUTTI_REDIS_PREFIX", d.RedisPrefix, "begins every key kept in Redis (several sites can share one)")
	str(&c.StorageURL, "storage-url", "TUTTI_STORAGE_URL", "", "s3://ACCESS:SECRET@host:port/bucket[/prefix]?secure=false&region=R keeps uploads in S3-compatible storage; empty means the data directory's uploads/")
	str(&c.SessionStore, "session-store", "TUTTI_SESSION_STORE", "", "where sessions live: db (the database) or redis; empty means redis when --redis-url is set, else db")
	str(&c.MemoryLimit, "memory-limit", "TUTTI_MEMORY_LIMIT", d.MemoryLimit, "the Go runtime's soft memory limit: auto (half of the machine's or the container's memory), off, or a size such as 512MiB; GOMEMLIMIT in the environment wins")
	str(&c.LogFormat, "log-format", "TUTTI_LOG_FORMAT", d.LogFormat, "log format: text or json")
	str(&c.DebugAddr, "debug-addr", "TUTTI_DEBUG_ADDR", "", "if set, serve Go profiles (net/http/pprof) on this address; keep it private")
	str(&c.FlightDir, "flight-dir", "TUTTI_FLIGHT_DIR", "", "if set, keep the last 10 s of the Go execution trace in memory and write it here when a request takes over a second (at most every 30 s; costs a few per cent of CPU)")
	str(&c.BaseURL, "base-url", "TUTTI_BASE_URL", "", "public base URL for links in calendars and mail; empty means taken from each request")
	str(&c.SMTPURL, "smtp-url", "TUTTI_SMTP_URL", "", "smtp://user:password@host:port (STARTTLS when offered) or smtps://... for outgoing mail; empty means mail is written as .eml files in DATA-DIR/mail")
	str(&c.TrustedProxies, "trusted-proxies", "TUTTI_TRUSTED_PROXIES", "", "comma-separated CIDRs or addresses of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (nginx in front: 127.0.0.1); empty believes no one")
	str(&c.PaymentURL, "payment-url", "TUTTI_PAYMENT_URL", d.PaymentURL, "the payment gateway: test: is the built-in test gateway, a stand-in that pays test cards (test:?decline=0.02&latency=300ms adds declines and a delay); stripe://SECRET_KEY@api.stripe.com charges through Stripe")
	str(&c.MailFrom, "mail-from", "TUTTI_MAIL_FROM", d.MailFrom, "the From address of outgoing mail")
	s.Int(&c.MailPerSecond, "mail-per-second", "TUTTI_MAIL_PER_SECOND", d.MailPerSecond, "mails the site sends per second, all instances together")
	fs.TextVar(&c.LogLevel, "log-level", levelFrom(env("TUTTI_LOG_LEVEL", "info")), "log level: debug, info, warn, error (env TUTTI_LOG_LEVEL)")
	s.Vars = append(s.Vars, Var{"log-level", "TUTTI_LOG_LEVEL", "info", "log level: debug, info, warn, error"})
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", durFrom(env("TUTTI_SHUTDOWN_TIMEOUT", ""), d.ShutdownTimeout), "graceful shutdown deadline (env TUTTI_SHUTDOWN_TIMEOUT)")
	s.Vars = append(s.Vars, Var{"shutdown-timeout", "TUTTI_SHUTDOWN_TIMEOUT", d.ShutdownTimeout.String(), "graceful shutdown deadline"})
	fs.IntVar(&c.CacheSize, "cache-bytes", intFrom(env("TUTTI_CACHE_BYTES", ""), d.CacheSize), "in-process cache capacity in bytes; 0 means a quarter of the memory limit, from 16 to 256 MiB (env TUTTI_CACHE_BYTES)")
	s.Vars = append(s.Vars, Var{"cache-bytes", "TUTTI_CACHE_BYTES", "0", "in-process cache capacity in bytes; 0: a quarter of the memory limit, from 16 to 256 MiB"})
	rl := env("TUTTI_RATE_LIMITS", "on")
	fs.BoolVar(&c.RateLimits, "rate-limits", rl != "off" && rl != "0" && rl != "false", "rate limits on login, sign-up and posting; --rate-limits=false turns them off for load tests (env TUTTI_RATE_LIMITS=off)")
	s.Vars = append(s.Vars, Var{"rate-limits", "TUTTI_RATE_LIMITS", "on", "rate limits on login, sign-up and posting; off only for load tests"})
	fs.BoolVar(&c.Demo, "demo", env("TUTTI_DEMO", "") == "1" || env("TUTTI_DEMO", "") == "true", "load the demo data set on start (env TUTTI_DEMO=1)")
	s.Vars = append(s.Vars, Var{"demo", "TUTTI_DEMO", "off", "load a small demo data set on start"})
}

// Validate checks the configuration after parsing.
func (c *Config) Validate() error {
	var errs []error
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("addr %q: %w", c.Addr, err))
	}
	if c.DataDir == "" {
		errs = append(errs, errors.New("data-dir must not be empty"))
	} else if abs, err := filepath.Abs(c.DataDir); err == nil {
		c.DataDir = abs
	}
	if c.DatabaseURL != "" && !db.IsPostgres(c.DatabaseURL) && !strings.HasPrefix(c.DatabaseURL, "sqlite:") {
		errs = append(errs, fmt.Errorf("database-url must start with postgres:// or sqlite:"))
	}
	if c.DatabaseReplicaURL != "" {
		switch {
		case !db.IsPostgres(c.DatabaseReplicaURL):
			errs = append(errs, errors.New("database-replica-url must start with postgres://"))
		case !db.IsPostgres(c.DatabaseURL):
			errs = append(errs, errors.New("database-replica-url needs PostgreSQL: set database-url to the primary's postgres:// URL"))
		}
	}
	if c.RedisURL != "" && !strings.HasPrefix(c.RedisURL, "redis://") && !strings.HasPrefix(c.RedisURL, "rediss://") && !strings.HasPrefix(c.RedisURL, "unix://") {
		errs = append(errs, fmt.Errorf("redis-url must start with redis://, rediss:// or unix://"))
	}
	if len(c.RedisPrefix) > 64 || strings.ContainsAny(c.RedisPrefix, " \t\r\n.*>") {
		errs = append(errs, errors.New("redis-prefix: at most 64 characters, no spaces, '.', '*' or '>'"))
	}
	if c.NATSPrefix != "" && !natsPrefix.MatchString(c.NATSPrefix) {
		errs = append(errs, errors.New("nats-prefix: letters, digits, '_', '-' and ':' in tokens that each end with '.', such as \"site1.\""))
	}
	if c.StorageURL != "" {
		if _, err := files.ParseS3URL(c.StorageURL); err != nil { // never quotes the secret
			errs = append(errs, err)
		}
	}
	switch c.SessionStore {
	case "":
		c.SessionStore = "db"
		if c.RedisURL != "" {
			c.SessionStore = "redis"
		}
	case "db":
	case "redis":
		if c.RedisURL == "" {
			errs = append(errs, errors.New("session-store redis needs --redis-url"))
		}
	default:
		errs = append(errs, fmt.Errorf("session-store %q: want db or redis", c.SessionStore))
	}
	if _, err := web.ParseProxies(c.TrustedProxies); err != nil {
		errs = append(errs, err)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("log-format %q: want text or json", c.LogFormat))
	}
	if c.CacheSize != 0 && c.CacheSize < 1<<20 {
		errs = append(errs, fmt.Errorf("cache-bytes %d: want at least 1 MiB (or 0: from the memory limit)", c.CacheSize))
	}
	switch c.MemoryLimit {
	case "auto", "off":
	default:
		if n, err := memlimit.ParseSize(c.MemoryLimit); err != nil {
			errs = append(errs, fmt.Errorf("memory-limit: %w (or auto, off)", err))
		} else if n < 32<<20 {
			errs = append(errs, fmt.Errorf("memory-limit %s: want at least 32MiB", c.MemoryLimit))
		}
	}
	if _, err := pay.Parse(c.PaymentURL); err != nil { // never quotes the key
		errs = append(errs, err)
	}
	if c.SMTPURL != "" {
		if _, _, err := mail.ParseSMTPURL(c.SMTPURL); err != nil {
			errs = append(errs, err)
		}
	}
	if c.SMTPURL != "" && c.BaseURL == "" {
		// Links in mail (password reset, e-mail change) must not take their
		// host from a request: a forged Host header would mail a user a
		// reset link to someone else's site.
		errs = append(errs, errors.New("smtp-url needs base-url: links in mail are built from the site's public URL, never from a request's Host header"))
	}
	if c.MailPerSecond < 1 {
		errs = append(errs, fmt.Errorf("mail-per-second %d: want 1 or more", c.MailPerSecond))
	}
	for _, name := range slices.Sorted(maps.Keys(c.Apps)) {
		if v, ok := c.Apps[name].(interface{ Validate() error }); ok {
			if err := v.Validate(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = Default().MaxBodyBytes
	}
	return errors.Join(errs...)
}

// natsPrefix is what may begin a NATS subject: whole tokens, each followed
// by its '.'.
var natsPrefix = regexp.MustCompile(`^([A-Za-z0-9_:-]+\.)+$`)

func levelFrom(s string) *slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		l = slog.LevelInfo
	}
	return &l
}

func durFrom(s string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(s); err == nil {
		return d
	}
	return def
}

func intFrom(s string, def int) int {
	var n int
	if _, err := fmt.Sscan(s, &n); err == nil {
		return n
	}
	return def
}
