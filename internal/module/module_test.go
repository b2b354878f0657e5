package module_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tutti-dev/tutti/internal/module"
)

// A module's assets are served under its StaticPrefix, the one place that
// derives it (the server and `tutti assets export` both build them here).
func TestModuleAssets(t *testing.T) {
	m := module.Module{Name: "demo", Static: fstest.MapFS{"demo.css": {Data: []byte("body{}")}}}
	a, err := m.Assets()
	if err != nil {
		t.Fatal(err)
	}
	if a.Prefix() != "/demo/static/" || !strings.HasPrefix(a.URL("demo.css"), "/demo/static/demo.") {
		t.Errorf("prefix %q, URL %q; want /demo/static/ and /demo/static/demo.HASH.css", a.Prefix(), a.URL("demo.css"))
	}
	if a, err := (module.Module{Name: "bare"}).Assets(); a != nil || err != nil {
		t.Errorf("Assets without Static: %v, %v; want nil, nil", a, err)
	}
}
