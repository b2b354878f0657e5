package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db"
)

const roleUsage = "usage: tutti role grant|revoke APP ROLE USERNAME [flags] | tutti role list [APP [ROLE]] [flags]"

// Roles are the roles the modules declare, app by app, in Modules' order.
func Roles() []auth.Role {
	var all []auth.Role
	for _, m := range Modules() {
		for _, r := range m.Roles {
			all = append(all, auth.Role{App: m.Name, Name: r.Name})
		}
	}
	return all
}

// checkRole is nil if an app declares r, else an error naming the roles
// there are.
func checkRole(r auth.Role) error {
	all := Roles()
	if slices.Contains(all, r) {
		return nil
	}
	names := make([]string, len(all))
	for i, d := range all {
		names[i] = d.String()
	}
	return fmt.Errorf("no role %q in app %q; the roles are: %s", r.Name, r.App, strings.Join(names, ", "))
}

// grant grants (on) or revokes a declared role.
func grant(ctx context.Context, a *auth.Service, username string, r auth.Role, on bool) error {
	if err := checkRole(r); err != nil {
		return err
	}
	if on {
		return a.Grant(ctx, username, r)
	}
	return a.Revoke(ctx, username, r)
}

// roleCmd is tutti role grant|revoke APP ROLE USERNAME and tutti role list
// [APP [ROLE]]: the roles come from the modules (module.Module.Roles).
func roleCmd(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 {
		return errors.New(roleUsage)
	}
	switch args[0] {
	case "grant", "revoke":
		if len(args) < 4 || strings.HasPrefix(args[1], "-") || strings.HasPrefix(args[2], "-") || strings.HasPrefix(args[3], "-") {
			return errors.New(roleUsage)
		}
		r := auth.Role{App: args[1], Name: args[2]}
		if err := checkRole(r); err != nil { // before the database is touched
			return err
		}
		verb := map[string]string{"grant": "add", "revoke": "remove"}[args[0]]
		what := "a " + r.Name + " of " + r.App
		return setRole(ctx, env, append([]string{verb, args[3]}, args[4:]...), "role "+args[0], what,
			func(ctx context.Context, _ *db.DB, a *auth.Service, u *auth.User, on bool) error {
				return grant(ctx, a, u.Username, r, on)
			})
	case "list":
		return roleList(ctx, env, args[1:])
	}
	return errors.New(roleUsage)
}

// rolePage is how many holders `tutti role list` prints of each role.
const rolePage = 100

// roleList prints each declared role (of APP, of ROLE), what it allows and
// who holds it (the first rolePage, then how to see the next).
func roleList(ctx context.Context, env Env, args []string) error {
	var only []string
	for len(args) > 0 && !strings.HasPrefix(args[0], "-") && len(only) < 2 {
		only, args = append(only, args[0]), args[1:]
	}
	var after int64
	cfg, err := parse("role list", env, args, func(fs *flag.FlagSet) {
		fs.Int64Var(&after, "after", 0, "list the holders after this user id (the next page)")
	})
	if err != nil {
		return err
	}
	type declared struct {
		r    auth.Role
		help string
	}
	var roles []declared
	for _, m := range Modules() {
		for _, r := range m.Roles {
			if (len(only) > 0 && only[0] != m.Name) || (len(only) > 1 && only[1] != r.Name) {
				continue
			}
			roles = append(roles, declared{auth.Role{App: m.Name, Name: r.Name}, r.Help})
		}
	}
	if len(roles) == 0 {
		r := auth.Role{App: only[0]}
		if len(only) > 1 {
			r.Name = only[1]
		}
		return checkRole(r)
	}
	d, a, err := openAccounts(ctx, cfg, env)
	if err != nil {
		return err
	}
	defer d.Close()
	for _, r := range roles {
		hs, err := a.RoleHolders(ctx, r.r, db.Cursor{ID: after}, rolePage+1)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s: %s\n", r.r, r.help)
		if len(hs) == 0 {
			fmt.Fprintln(env.Stdout, "  (nobody)")
		}
		for i, h := range hs {
			if i == rolePage {
				fmt.Fprintf(env.Stdout, "  ... more: tutti role list %s --after %d\n", r.r, hs[i-1].ID)
				break
			}
			fmt.Fprintf(env.Stdout, "  %s (id %d, since %s)\n", h.Username, h.ID, h.GrantedAt.Format("2006-01-02"))
		}
	}
	return nil
}

// openAccounts opens the migrated database and the accounts on it, for the
// commands that grant and list (close the database after).
func openAccounts(ctx context.Context, cfg config.Config, env Env) (*db.DB, *auth.Service, error) {
	log := NewLogger(cfg, env.Stderr)
	d, err := openMigrated(ctx, cfg, log)
	if err != nil {
		return nil, nil, err
	}
	a, err := auth.New(auth.Deps{DB: d, Log: log})
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	return d, a, nil
}
