package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/meet"
	"github.com/tutti-dev/tutti/internal/roar"
)

// Env is the process environment the CLI reads (a value, so tests can fake it).
type Env struct {
	Args    []string // without the program name
	Stdout  io.Writer
	Stderr  io.Writer
	Getenv  func(string) string
	Version string
}

const usage = `tutti: five web apps on one fast core.

Usage:
  tutti serve [flags]          serve every app (default: 127.0.0.1:8080, data in ./tutti-data)
  tutti serve --demo           ... and load a small demo data set
  tutti migrate [flags]        apply pending database migrations and exit
  tutti seed meet|roar [flags] bulk-load an app's load-test data set and write its ids
  tutti moderator add|remove USERNAME [flags]
                               grant or revoke moderation (roar's reports)
  tutti operator add|remove USERNAME [flags]
                               grant or revoke the operators' pages (/ops/: jobs, mail)
  tutti jobs [list [STATE]] | tutti jobs retry ID [flags]
                               background jobs: counts, the newest, retry a dead one
  tutti load run|list|compare  run the load scenarios (tutti load help)
  tutti version                print the version
  tutti help                   this text

Run "tutti serve -h" for the settings; each also reads a TUTTI_* variable.
`

// Run is the command line; it returns the process exit code.
func Run(ctx context.Context, env Env) int {
	if len(env.Args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return 2
	}
	cmd, args := env.Args[0], env.Args[1:]
	var err error
	switch cmd {
	case "serve":
		err = serve(ctx, env, args)
	case "migrate":
		err = migrate(ctx, env, args)
	case "seed":
		err = seed(ctx, env, args)
	case "moderator":
		err = moderator(ctx, env, args)
	case "operator":
		err = operator(ctx, env, args)
	case "jobs":
		err = jobsCmd(ctx, env, args)
	case "load":
		return load.Main(ctx, args, env.Stdout, env.Stderr, Scenarios())
	case "version", "--version", "-v":
		fmt.Fprintf(env.Stdout, "tutti %s (%s, %s/%s)\n", env.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	case "help", "-h", "--help":
		fmt.Fprint(env.Stdout, usage)
	default:
		fmt.Fprintf(env.Stderr, "tutti: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "tutti %s: %v\n", cmd, err)
		return 1
	}
	return 0
}

// Scenarios are the load scenarios of every app.
func Scenarios() map[string]load.Factory {
	m := map[string]load.Factory{"meet": meet.LoadScenario}
	for name, f := range roar.LoadScenarios() {
		m[name] = f
	}
	return m
}

// parse reads the shared settings (plus extra flags) for a command.
func parse(name string, env Env, args []string, extra func(fs *flag.FlagSet)) (config.Config, error) {
	fs := flag.NewFlagSet("tutti "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var cfg config.Config
	config.Flags(fs, &cfg, env.Getenv)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	return cfg, cfg.Validate()
}

// NewLogger makes the process logger from the configuration.
func NewLogger(cfg config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func serve(ctx context.Context, env Env, args []string) error {
	cfg, err := parse("serve", env, args, nil)
	if err != nil {
		return err
	}
	log := NewLogger(cfg, env.Stderr)
	m, err := New(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer m.Close()
	if cfg.Demo {
		pub, admin, err := m.Meet.Demo(ctx)
		if err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
		log.Info("demo data loaded", "poll", pub, "admin", admin)
		if pw, err := m.Auth.Demo(ctx); err != nil {
			return fmt.Errorf("demo user: %w", err)
		} else if pw != "" {
			log.Info("demo user created", "username", "demo", "password", pw)
		}
	}
	if err := m.Listen(); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "tutti %s serving %s (data in %s, %s)\n", env.Version, m.URL(), cfg.DataDir, m.DB.Dialect)
	return m.Serve(ctx)
}

func migrate(ctx context.Context, env Env, args []string) error {
	cfg, err := parse("migrate", env, args, nil)
	if err != nil {
		return err
	}
	d, err := openMigrated(ctx, cfg, NewLogger(cfg, env.Stderr))
	if err != nil {
		return err
	}
	return d.Close()
}

// openMigrated opens the configured database and applies pending migrations
// (for the commands that work on it directly).
func openMigrated(ctx context.Context, cfg config.Config, log *slog.Logger) (*db.DB, error) {
	d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	if err := d.Migrate(ctx, log, Migrations()...); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func seed(ctx context.Context, env Env, args []string) error {
	if len(args) > 0 && args[0] == "roar" {
		return seedRoar(ctx, env, args[1:])
	}
	if len(args) == 0 || args[0] != "meet" {
		return errors.New("which app? tutti seed meet|roar")
	}
	size := meet.SeedDefault
	var out string
	var rngSeed uint64
	cfg, err := parse("seed meet", env, args[1:], func(fs *flag.FlagSet) {
		fs.IntVar(&size.Polls, "polls", size.Polls, "polls to create")
		fs.IntVar(&size.Participants, "participants", size.Participants, "participants, spread over the polls")
		fs.IntVar(&size.Timeframes, "timeframes", size.Timeframes, "timeframes, spread over the participants")
		fs.IntVar(&size.Comments, "comments", size.Comments, "comments")
		fs.StringVar(&out, "out", "", "where to write the ids for the load test (default DATA-DIR/seed/meet.json)")
		fs.Uint64Var(&rngSeed, "seed", 1, "random seed")
	})
	if err != nil {
		return err
	}
	if size.Polls < 1 || size.Participants < 1 || size.Timeframes < 0 || size.Comments < 0 {
		return errors.New("need at least one poll and one participant")
	}
	if out == "" {
		out = filepath.Join(cfg.DataDir, "seed", "meet.json")
	}
	log := NewLogger(cfg, env.Stderr)
	d, err := openMigrated(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer d.Close()
	ids, err := meet.Seed(ctx, d, size, out, progressTo(env), rngSeed)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "seeded meet: %d polls, %d participants, %d timeframes, %d comments; ids in %s\n",
		len(ids.Polls), len(ids.Participants), size.Timeframes, size.Comments, out)
	return nil
}

// progressTo is where a progress bar goes: the terminal's stderr, else nowhere.
func progressTo(env Env) io.Writer {
	if f, ok := env.Stderr.(*os.File); ok && f != nil {
		return f
	}
	return nil
}

func seedRoar(ctx context.Context, env Env, args []string) error {
	size := roar.SeedDefault
	var out, password string
	var rngSeed uint64
	cfg, err := parse("seed roar", env, args, func(fs *flag.FlagSet) {
		fs.IntVar(&size.Users, "users", size.Users, "users to create, all with the same password")
		fs.IntVar(&size.Roars, "roars", size.Roars, "roars (a fifth of them replies; some with #hashtags and @mentions)")
		fs.IntVar(&size.Likes, "likes", size.Likes, "likes, mostly on recent roars")
		fs.IntVar(&size.Follows, "follows", size.Follows, "follows between the users")
		fs.StringVar(&password, "password", roar.SeedPassword, "every seeded user's password")
		fs.StringVar(&out, "out", "", "where to write the ids for the load test (default DATA-DIR/seed/roar.json)")
		fs.Uint64Var(&rngSeed, "seed", 1, "random seed")
	})
	if err != nil {
		return err
	}
	if size.Users < 2 || size.Roars < 1 || size.Likes < 0 || size.Follows < 0 {
		return errors.New("need at least two users and one roar")
	}
	if out == "" {
		out = filepath.Join(cfg.DataDir, "seed", "roar.json")
	}
	d, err := openMigrated(ctx, cfg, NewLogger(cfg, env.Stderr))
	if err != nil {
		return err
	}
	defer d.Close()
	start := time.Now()
	ids, err := roar.Seed(ctx, d, size, password, out, progressTo(env), rngSeed)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "seeded roar in %.1f s: %d users (password %q), %d roars, up to %d likes and %d follows; ids in %s\n",
		time.Since(start).Seconds(), len(ids.Users), password, len(ids.Roars), size.Likes, size.Follows, out)
	return nil
}

// moderator grants or revokes moderation: tutti moderator add|remove USERNAME.
func moderator(ctx context.Context, env Env, args []string) error {
	if len(args) < 2 || (args[0] != "add" && args[0] != "remove") {
		return errors.New("usage: tutti moderator add|remove USERNAME [flags]")
	}
	on, name := args[0] == "add", args[1]
	cfg, err := parse("moderator", env, args[2:], nil)
	if err != nil {
		return err
	}
	log := NewLogger(cfg, env.Stderr)
	d, err := openMigrated(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer d.Close()
	a, err := auth.New(auth.Deps{DB: d, Log: log})
	if err != nil {
		return err
	}
	if err := a.SetModerator(ctx, name, on); err != nil {
		if errs.KindOf(err) == errs.NotFound {
			return fmt.Errorf("no user %q", name)
		}
		return err
	}
	if on {
		fmt.Fprintf(env.Stdout, "%s is now a moderator\n", name)
	} else {
		fmt.Fprintf(env.Stdout, "%s is no longer a moderator\n", name)
	}
	return nil
}
