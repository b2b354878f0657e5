package load

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/tutti-dev/tutti/internal/web"
)

const usage = `tutti load: run the load scenarios against a tutti on this machine.

  tutti load list                       the scenarios
  tutti load run --scenario NAME [flags] one run (flags: tutti load run -h)
  tutti load compare a.json b.json      two runs side by side, with b/a ratios
`

// Main is the `tutti load` command; it returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, scenarios map[string]Factory) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "list":
		for _, name := range sortedKeys(scenarios) {
			sc, err := scenarios[name](Options{})
			desc := ""
			if err == nil {
				desc = sc.Description
			}
			fmt.Fprintf(stdout, "%-10s %s\n", name, desc)
		}
		return 0
	case "compare":
		if len(args) != 3 {
			fmt.Fprintln(stderr, "usage: tutti load compare a.json b.json")
			return 2
		}
		a, err := ReadResult(args[1])
		if err != nil {
			fmt.Fprintln(stderr, "tutti load:", err)
			return 1
		}
		b, err := ReadResult(args[2])
		if err != nil {
			fmt.Fprintln(stderr, "tutti load:", err)
			return 1
		}
		Compare(stdout, a, b, args[1], args[2])
		return 0
	case "run":
		return run(ctx, args[1:], stdout, stderr, scenarios)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "tutti load: unknown command %q\n%s", args[0], usage)
	return 2
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, scenarios map[string]Factory) int {
	fs := flag.NewFlagSet("tutti load run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("scenario", "", "scenario name (tutti load list)")
	target := fs.String("target", "http://127.0.0.1:8080", "base URL of the server under test (loopback only)")
	seedFile := fs.String("seed-file", "", "ids written by `tutti seed APP` (default tutti-data/seed/APP.json, APP the scenario's name up to a '-')")
	phaseSecs := fs.Float64("phase-seconds", 0, "override every phase's length")
	rates := fs.String("rates", "", "override the phases' rates, e.g. 2,4,8")
	closed := fs.Int("closed", 0, "closed model: this many sessions loop")
	duration := fs.Duration("duration", 30*time.Second, "closed model: for this long")
	warmup := fs.Duration("warmup", 0, "closed model: run this long first without measuring (sessions log in)")
	params := map[string]string{}
	fs.Func("opt", "a scenario option key=value (repeatable; see tutti load list)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return errors.New("want key=value")
		}
		params[k] = v
		return nil
	})
	timeout := fs.Duration("timeout", 10*time.Second, "per-request timeout")
	maxSessions := fs.Int64("max-sessions", 100_000, "sessions alive at once, at most")
	jsonOut := fs.String("json", "", "write the result as JSON here")
	htmlOut := fs.String("html", "", "write the HTML report here")
	maxErrors := fs.Int64("max-errors", -1, "exit 1 if the run has more errors than this (-1: no limit)")
	seed := fs.Uint64("seed", 1, "random seed")
	quiet := fs.Bool("quiet", false, "no progress bar")
	cpuProfile := fs.String("cpuprofile", "", "write the generator's own CPU profile here (go tool pprof): is the run measuring the server or the generator?")
	debugAddr := fs.String("debug-addr", "", "serve the generator's Go profiles (net/http/pprof: heap, profile) on this loopback address during the run")
	shared := fs.Bool("shared", false, "one pool of connections for all people (raw throughput); by default each person has its own, as a browser does")
	keepAlive := fs.Duration("keepalive", 5*time.Second, "a person's idle connection closes after this, as a server's keep-alive ends it (Apache's default; a longer think opens a new one)")
	sources := fs.Int("sources", 16, "spread people's connections over this many loopback source addresses (127.0.0.N)")
	grace := fs.Duration("grace", 0, "after the phases, sessions under way may finish within this (default: the scenario's)")
	memoryEvery := fs.Duration("memory-every", time.Second, "read the server's resident memory from its /metrics this often, and report the peak (0: never)")
	gogc := fs.Int("gogc", DefaultGOGC, "the generator's GOGC (GOGC in the environment wins): its live memory is its people, long-lived, so it collects seldom, under a soft memory limit of half the machine's")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	relaxGC(*gogc, stderr)
	factory, ok := scenarios[*name]
	if !ok {
		fmt.Fprintf(stderr, "tutti load: unknown scenario %q (have: %s)\n", *name, strings.Join(sortedKeys(scenarios), ", "))
		return 2
	}
	u, err := url.Parse(*target)
	if err == nil {
		err = CheckTarget(u)
	}
	if err != nil {
		fmt.Fprintln(stderr, "tutti load:", err)
		return 2
	}
	if *seedFile == "" {
		app, _, _ := strings.Cut(*name, "-") // roar-read's data set is roar's
		*seedFile = "tutti-data/seed/" + app + ".json"
	}
	opts := Options{Target: u, SeedFile: *seedFile, Params: params}.Noting()
	sc, err := factory(opts)
	if err != nil {
		fmt.Fprintln(stderr, "tutti load:", err)
		return 1
	}
	if unread := opts.Unread(); len(unread) > 0 {
		fmt.Fprintf(stderr, "tutti load: %s takes no option %s (its options: tutti load list)\n", *name, strings.Join(unread, ", "))
		return 2
	}
	phases := append([]Phase(nil), sc.Phases...)
	if *rates != "" {
		phases = phases[:0]
		for _, s := range strings.Split(*rates, ",") {
			r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || r <= 0 {
				fmt.Fprintf(stderr, "tutti load: bad rate %q\n", s)
				return 2
			}
			phases = append(phases, Phase{Duration: time.Minute, Rate: r})
		}
	}
	if *phaseSecs > 0 {
		for i := range phases {
			phases[i].Duration = time.Duration(*phaseSecs * float64(time.Second))
		}
	}
	cfg := Config{Target: u, Phases: phases, Closed: *closed, Duration: *duration, Warmup: *warmup, Timeout: *timeout,
		MaxSessions: *maxSessions, Seed: *seed, MemoryEvery: *memoryEvery, Shared: *shared, KeepAlive: *keepAlive,
		Sources: *sources, Grace: *grace}
	var total time.Duration
	if cfg.Closed > 0 {
		total = cfg.Warmup + cfg.Duration
	} else {
		for _, p := range phases {
			total += p.Duration
		}
	}
	if !*quiet {
		bar := progressbar.NewOptions64(int64(total/time.Second), progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription(sc.Name), progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetPredictTime(false), progressbar.OptionClearOnFinish())
		cfg.Progress = func(p Progress) {
			el := p.Elapsed
			phase := 0
			var acc time.Duration
			for i, ph := range phases {
				if acc += ph.Duration; el < acc {
					phase = i + 1
					break
				}
			}
			what := fmt.Sprintf("phase %d/%d", phase, len(phases))
			if phase == 0 {
				what = "finishing"
			}
			bar.Describe(fmt.Sprintf("%s %s: %d arrivals, %d alive, %d requests, %d errors",
				sc.Name, what, p.Arrivals, p.Active, p.Requests, p.Errors))
			bar.Set64(min(int64(el/time.Second), int64(total/time.Second)))
		}
	}
	if *debugAddr != "" {
		go web.ServeDebug(*debugAddr, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(stderr, "tutti load:", err)
			return 1
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	res, err := Run(ctx, sc, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "tutti load:", err)
		return 1
	}
	res.WriteText(stdout)
	if *jsonOut != "" {
		if err := res.WriteJSON(*jsonOut); err != nil {
			fmt.Fprintln(stderr, "tutti load:", err)
			return 1
		}
	}
	if *htmlOut != "" {
		if err := res.WriteHTML(*htmlOut); err != nil {
			fmt.Fprintln(stderr, "tutti load:", err)
			return 1
		}
	}
	if *maxErrors >= 0 && res.Totals.Errors > *maxErrors {
		fmt.Fprintf(stderr, "tutti load: %d errors, more than the %d allowed\n", res.Totals.Errors, *maxErrors)
		return 1
	}
	return 0
}
