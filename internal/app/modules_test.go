package app

import (
	"testing"
)

// TestModules: each app is in the list once, under its own name, with its
// own migrations table; its scenarios do not clash with another's.
func TestModules(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Modules() {
		if m.Name == "" || m.New == nil || m.Migrations.FS == nil {
			t.Errorf("module %q: name, New and migrations are required", m.Name)
		}
		if seen[m.Name] {
			t.Errorf("module %q listed twice", m.Name)
		}
		seen[m.Name] = true
		if m.Migrations.App != m.Name {
			t.Errorf("module %q: migrations table goose_%s; want goose_%s", m.Name, m.Migrations.App, m.Name)
		}
		if m.Link().Path != "/"+m.Name+"/" || !m.Link().Ready {
			t.Errorf("module %q: link %+v", m.Name, m.Link())
		}
	}
	for _, l := range comingSoon {
		if seen[l.Name] {
			t.Errorf("%s is both a module and coming soon", l.Name)
		}
	}
	if got, want := len(Migrations()), len(Modules())+1; got != want {
		t.Errorf("%d migration sets; want %d (accounts and each module)", got, want)
	}
	sc := Scenarios() // panics on a name defined twice
	for _, name := range []string{"meet", "roar-index", "roar-fanout"} {
		if sc[name] == nil {
			t.Errorf("load scenario %q missing", name)
		}
	}
}
