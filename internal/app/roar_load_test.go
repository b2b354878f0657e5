package app_test

import (
	"bytes"
	"context"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/roar"
)

// TestRoarSeedAndScenarios seeds a small roar data set through the CLI and
// builds every roar scenario against it.
func TestRoarSeedAndScenarios(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	env := app.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Version: "test",
		Args: []string{"seed", "roar", "--data-dir", dir, "--log-level", "warn", "--users", "20", "--roars", "300",
			"--likes", "200", "--follows", "50"}}
	if code := app.Run(context.Background(), env); code != 0 {
		t.Fatalf("tutti seed roar: exit %d: %s", code, errb.String())
	}
	seedFile := filepath.Join(dir, "seed", "roar.json")
	ids, err := roar.LoadSeedIDs(seedFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids.Users) != 20 || len(ids.Roars) != 300 || ids.Password != roar.SeedPassword {
		t.Errorf("seed ids: %d users, %d roars, password %q; want 20, 300, %q", len(ids.Users), len(ids.Roars), ids.Password, roar.SeedPassword)
	}
	scenarios := app.Scenarios()
	target, _ := url.Parse("http://127.0.0.1:1")
	for _, name := range []string{"roar-index", "roar-login", "roar-read", "roar-write", "roar-mixed", "roar-fanout"} {
		f, ok := scenarios[name]
		if !ok {
			t.Errorf("Scenarios() has no %s", name)
			continue
		}
		sc, err := f(load.Options{Target: target, SeedFile: seedFile, Params: map[string]string{}})
		if err != nil || len(sc.Sessions) == 0 || sc.Name != name || len(sc.Phases) == 0 {
			t.Errorf("%s: %+v, %v; want a scenario with sessions and phases", name, sc, err)
		}
		if _, err := f(load.Options{}); err != nil {
			t.Errorf("%s without a target (listing): %v", name, err)
		}
	}
	if _, err := scenarios["roar-read"](load.Options{Target: target, SeedFile: seedFile, Params: map[string]string{"read": "xml"}}); err == nil {
		t.Error("read=xml accepted")
	}
	if _, err := scenarios["roar-read"](load.Options{Target: target, SeedFile: filepath.Join(dir, "none.json")}); err == nil {
		t.Error("a missing seed file accepted")
	}
}
