package app

import (
	"fmt"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/meet"
	"github.com/tutti-dev/tutti/internal/module"
	"github.com/tutti-dev/tutti/internal/music"
	"github.com/tutti-dev/tutti/internal/ops"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/race"
	"github.com/tutti-dev/tutti/internal/roar"
	"github.com/tutti-dev/tutti/internal/web"
)

// Modules is every app tutti hosts, in order: the navigation's order and
// their migrations'. Adding an app is one line here (and its module.go):
// its routes, migrations, demo data, seed, load scenarios and hooks are
// found through it.
func Modules() []module.Module {
	return []module.Module{
		meet.Module(),
		music.Module(),
		roar.Module(),
		race.Module(),
	}
}

// comingSoon are the apps shown on the start page before they exist.
var comingSoon = []web.AppLink{
	{Path: "/rent/", Name: "rent", Blurb: "Rent instruments from people near you, by the day."},
}

// Apps is the navigation: every app, ready or coming soon.
func Apps() []web.AppLink {
	var links []web.AppLink
	for _, m := range Modules() {
		links = append(links, m.Link())
	}
	return append(links, comingSoon...)
}

// Migrations lists every migration set in the order they are applied: the
// core's first (accounts, since everything refers to users; then jobs and
// the operators), then each module's.
func Migrations() []db.Migrations {
	sets := coreMigrations()
	for _, m := range Modules() {
		sets = append(sets, m.Migrations)
	}
	return sets
}

// coreMigrations are the core's migration sets: request keys, accounts,
// jobs, media files, operators, the test payment gateway's ledger.
func coreMigrations() []db.Migrations {
	return []db.Migrations{db.KeyMigrations, auth.Migrations, jobs.Migrations, media.Migrations, ops.Migrations, pay.Migrations}
}

// Scenarios are the load scenarios of every app, by name.
func Scenarios() map[string]load.Factory {
	all := map[string]load.Factory{}
	for _, m := range Modules() {
		if m.Scenarios == nil {
			continue
		}
		for name, f := range m.Scenarios() {
			if _, dup := all[name]; dup {
				panic(fmt.Sprintf("app: load scenario %q is defined twice (module %s)", name, m.Name))
			}
			all[name] = f
		}
	}
	return all
}

// module returns the module named name.
func moduleNamed(name string) (module.Module, bool) {
	for _, m := range Modules() {
		if m.Name == name {
			return m, true
		}
	}
	return module.Module{}, false
}
