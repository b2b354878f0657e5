package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/ops"
)

// operator grants or revokes the operator role: tutti operator add|remove USERNAME.
func operator(ctx context.Context, env Env, args []string) error {
	return setRole(ctx, env, args, "operator", "an operator (pages under /ops/)",
		func(ctx context.Context, d *db.DB, _ *auth.Service, u *auth.User, on bool) error {
			return ops.SetOperator(ctx, d, u.ID, on)
		})
}

// jobsCmd shows the background jobs or retries a dead one:
// tutti jobs [list [ready|running|dead]] | tutti jobs retry ID.
func jobsCmd(ctx context.Context, env Env, args []string) error {
	sub := "list"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	var state string
	var id int64
	switch sub {
	case "list":
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			state, args = args[0], args[1:]
			if state != jobs.Ready && state != jobs.Running && state != jobs.Dead {
				return fmt.Errorf("state %q: want ready, running or dead", state)
			}
		}
	case "retry":
		if len(args) == 0 {
			return errors.New("usage: tutti jobs retry ID")
		}
		var err error
		if id, err = strconv.ParseInt(args[0], 10, 64); err != nil {
			return fmt.Errorf("job id %q: want a number", args[0])
		}
		args = args[1:]
	default:
		return errors.New("usage: tutti jobs [list [ready|running|dead]] | tutti jobs retry ID")
	}
	cfg, err := parse("jobs", env, args, nil)
	if err != nil {
		return err
	}
	d, err := openMigrated(ctx, cfg, NewLogger(cfg, env.Stderr))
	if err != nil {
		return err
	}
	defer d.Close()
	q := jobs.New(d, jobs.Options{})
	if sub == "retry" {
		if err := q.Retry(ctx, id); err != nil {
			if errs.KindOf(err) == errs.NotFound {
				return fmt.Errorf("no dead job %d", id)
			}
			return err
		}
		fmt.Fprintf(env.Stdout, "job %d is ready again (a running tutti picks it up within seconds)\n", id)
		return nil
	}
	c, err := q.Counts(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "ready %d, running %d, dead %d\n", c.Ready, c.Running, c.Dead)
	list, err := q.List(ctx, state, 100)
	if err != nil || len(list) == 0 {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSTATE\tATTEMPTS\tRUN AT\tLAST ERROR")
	for _, j := range list {
		e := j.LastError
		if len(e) > 80 {
			e = e[:77] + "..."
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d/%d\t%s\t%s\n", j.ID, j.Kind, j.State, j.Attempts, j.MaxAttempts, j.RunAt.UTC().Format(time.DateTime), e)
	}
	return tw.Flush()
}
