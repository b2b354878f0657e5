package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/module"
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
  tutti seed APP [flags]       bulk-load an app's load-test data set and write its ids
%s  tutti role grant|revoke APP ROLE USERNAME [flags]
                               grant or revoke an app's role (tutti role list: the roles
                               and who holds them)
%s  tutti moderator add|remove USERNAME [flags]
                               the same as tutti role grant|revoke roar moderator USERNAME
%s  tutti operator add|remove USERNAME [flags]
                               grant or revoke the operators' pages (/ops/: jobs, mail)
  tutti jobs [list [STATE]] | tutti jobs retry ID [flags]
                               background jobs: counts, the newest, retry a dead one
  tutti load run|list|compare  run the load scenarios (tutti load help)
  tutti assets export DIR      write the hashed static files (and .gz) for nginx
  tutti version                print the version
  tutti help                   this text

Run "tutti serve -h" for the settings; each also reads a TUTTI_* variable.
`

// usageText is usage with the seedable apps filled in.
func usageText() string {
	var seeds strings.Builder
	for _, m := range Modules() {
		if m.Seed != nil {
			fmt.Fprintf(&seeds, "    %-27s%s\n", m.Name+":", m.Seed.Help)
		}
	}
	var roles strings.Builder
	for _, m := range Modules() {
		for _, r := range m.Roles {
			fmt.Fprintf(&roles, "    %-27s%s\n", m.Name+" "+r.Name+":", r.Help)
		}
	}
	var cmds strings.Builder
	for _, m := range Modules() {
		for _, name := range slices.Sorted(maps.Keys(m.Commands)) {
			c := m.Commands[name]
			fmt.Fprintf(&cmds, "  tutti %s %s\n%31s%s (%s)\n", name, c.Usage, "", c.Help, m.Name)
		}
	}
	return fmt.Sprintf(usage, seeds.String(), roles.String(), cmds.String())
}

// Run is the command line; it returns the process exit code.
func Run(ctx context.Context, env Env) int {
	if len(env.Args) == 0 {
		fmt.Fprint(env.Stderr, usageText())
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
	case "role":
		err = roleCmd(ctx, env, args)
	case "moderator":
		err = moderator(ctx, env, args)
	case "operator":
		err = operator(ctx, env, args)
	case "jobs":
		err = jobsCmd(ctx, env, args)
	case "assets":
		err = assetsCmd(ctx, env, args)
	case "load":
		return load.Main(ctx, args, env.Stdout, env.Stderr, Scenarios())
	case "version", "--version", "-v":
		fmt.Fprintf(env.Stdout, "tutti %s (%s, %s/%s)\n", env.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	case "help", "-h", "--help":
		fmt.Fprint(env.Stdout, usageText())
	default:
		c, ok := commandNamed(Modules(), cmd)
		if !ok {
			fmt.Fprintf(env.Stderr, "tutti: unknown command %q\n\n%s", cmd, usageText())
			return 2
		}
		err = runCommand(ctx, env, cmd, c, args)
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

// commandNamed is the modules' command name (module.Module.Commands).
func commandNamed(mods []module.Module, name string) (module.Command, bool) {
	for _, m := range mods {
		if c, ok := m.Commands[name]; ok {
			return c, true
		}
	}
	return module.Command{}, false
}

// runCommand runs a module's command with the arguments after its name.
func runCommand(ctx context.Context, env Env, name string, c module.Command, args []string) error {
	settings := func(args []string, extra func(fs *flag.FlagSet)) (config.Config, []string, error) {
		return parseArgs(name, env, args, extra)
	}
	return c.Run(ctx, args, settings, env.Stdout)
}

// parse reads the shared settings (plus extra flags) for a command.
func parse(name string, env Env, args []string, extra func(fs *flag.FlagSet)) (config.Config, error) {
	cfg, rest, err := parseArgs(name, env, args, extra)
	if len(rest) > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %s", strings.Join(rest, " "))
	}
	return cfg, err
}

// parseArgs is parse that returns the positional arguments left.
func parseArgs(name string, env Env, args []string, extra func(fs *flag.FlagSet)) (config.Config, []string, error) {
	fs := flag.NewFlagSet("tutti "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var cfg config.Config
	Settings(fs, &cfg, env.Getenv)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return cfg, nil, err
	}
	return cfg, fs.Args(), cfg.Validate()
}

// Settings declares every setting on fs: the core's (config.Flags), then
// each module's own (module.Module.Flags), whose values it keeps in
// cfg.Apps. It returns them all, for the usage text and the docs' table.
// After fs.Parse, call cfg.Validate.
func Settings(fs *flag.FlagSet, cfg *config.Config, getenv func(string) string) []config.Var {
	s := &config.Settings{FS: fs, Getenv: getenv}
	config.FlagsOn(s, cfg)
	cfg.Apps = map[string]any{}
	for _, m := range Modules() {
		if m.Flags != nil {
			cfg.Apps[m.Name] = m.Flags(s)
		}
	}
	return s.Vars
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
	defer applyMemoryLimit(cfg, env.Getenv, os.DirFS("/"), log)()
	m, err := New(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer m.Close()
	if cfg.Demo {
		if err := m.LoadDemo(ctx); err != nil {
			return err
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

// seed is tutti seed APP: the app's module declares its flags and loads.
func seed(ctx context.Context, env Env, args []string) error {
	var names []string
	for _, m := range Modules() {
		if m.Seed != nil {
			names = append(names, m.Name)
		}
	}
	which := "which app? tutti seed " + strings.Join(names, "|")
	if len(args) == 0 {
		return errors.New(which)
	}
	mod, ok := moduleNamed(args[0])
	if !ok || mod.Seed == nil {
		return fmt.Errorf("no seed for %q; %s", args[0], which)
	}
	var run module.SeedRun
	var check func() error
	var seedFn module.SeedFunc
	cfg, err := parse("seed "+mod.Name, env, args[1:], func(fs *flag.FlagSet) {
		check, seedFn = mod.Seed.Flags(fs)
		fs.StringVar(&run.Out, "out", "", "where to write the ids for the load test (default DATA-DIR/seed/"+mod.Name+".json)")
		fs.Uint64Var(&run.RNGSeed, "seed", 1, "random seed")
	})
	if err == nil {
		err = check()
	}
	if err != nil {
		return err
	}
	if run.Out == "" {
		run.Out = filepath.Join(cfg.DataDir, "seed", mod.Name+".json")
	}
	run.Progress = progressTo(env)
	log := NewLogger(cfg, env.Stderr)
	d, err := openMigrated(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer d.Close()
	if run.Files, err = openFiles(ctx, cfg, log); err != nil {
		return err
	}
	summary, err := seedFn(ctx, d, run)
	if err != nil {
		return err
	}
	if err := d.Analyze(ctx); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, summary)
	return nil
}

// progressTo is where a progress bar goes: the terminal's stderr, else nowhere.
func progressTo(env Env) io.Writer {
	if f, ok := env.Stderr.(*os.File); ok && f != nil {
		return f
	}
	return nil
}

// moderator grants or revokes roar's moderation: tutti moderator
// add|remove USERNAME, the older spelling of tutti role grant|revoke roar
// moderator USERNAME.
func moderator(ctx context.Context, env Env, args []string) error {
	return setRole(ctx, env, args, "moderator", "a moderator",
		func(ctx context.Context, _ *db.DB, a *auth.Service, u *auth.User, on bool) error {
			return grant(ctx, a, u.Username, auth.Role{App: "roar", Name: "moderator"}, on)
		})
}

// setRole is the command "tutti CMD add|remove USERNAME [flags]": it opens
// the migrated database, finds the user and grants (add) or revokes
// (remove) what set sets.
func setRole(ctx context.Context, env Env, args []string, cmd, what string,
	set func(ctx context.Context, d *db.DB, a *auth.Service, u *auth.User, on bool) error) error {
	if len(args) < 2 || (args[0] != "add" && args[0] != "remove") {
		return fmt.Errorf("usage: tutti %s add|remove USERNAME [flags]", cmd)
	}
	on, name := args[0] == "add", args[1]
	cfg, err := parse(cmd, env, args[2:], nil)
	if err != nil {
		return err
	}
	d, a, err := openAccounts(ctx, cfg, env)
	if err != nil {
		return err
	}
	defer d.Close()
	u, err := a.ByUsername(ctx, name)
	if errs.KindOf(err) == errs.NotFound {
		return fmt.Errorf("no user %q", name)
	}
	if err != nil {
		return err
	}
	if err := set(ctx, d, a, u, on); err != nil {
		return err
	}
	if on {
		fmt.Fprintf(env.Stdout, "%s is now %s\n", u.Username, what)
	} else {
		fmt.Fprintf(env.Stdout, "%s is no longer %s\n", u.Username, strings.SplitN(what, " (", 2)[0])
	}
	return nil
}
