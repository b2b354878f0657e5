package dbtest

import (
	"os"
	"testing"
)

func TestURLsHonoursTheList(t *testing.T) {
	t.Setenv(OnlyEnv, "sqlite")
	if got := URLs(t); len(got) != 1 || got["sqlite"] != "" {
		t.Errorf("%s=sqlite: got %v; want only sqlite", OnlyEnv, got)
	}
	if os.Getenv(Env) == "" {
		return // the postgres entry needs a server; its absence is checked below
	}
	t.Setenv(OnlyEnv, "postgres")
	if got := URLs(t); len(got) != 1 || got["postgres"] == "" {
		t.Errorf("%s=postgres: got %v; want only postgres", OnlyEnv, got)
	}
}

func TestURLsSkipsWithNone(t *testing.T) {
	t.Setenv(OnlyEnv, "none")
	ran := false
	t.Run("none", func(t *testing.T) {
		URLs(t)
		ran = true
	})
	if ran {
		t.Errorf("%s=none: URLs returned; want the test skipped", OnlyEnv)
	}
}
