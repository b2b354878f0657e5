package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/config"
)

func TestModeratorCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Addr, cfg.DataDir = "127.0.0.1:0", dir
	m, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Auth.Create(ctx, auth.Signup{Username: "Mia", Email: "mia@example.com", Password: "password1"}); err != nil {
		t.Fatal(err)
	}
	m.Close()

	var out, errb bytes.Buffer
	env := app.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Version: "test"}
	cases := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"moderator", "add", "mia", "--data-dir", dir}, 0, "Mia is now a moderator"}, // the account as it is named
		{[]string{"moderator", "remove", "MIA", "--data-dir", dir}, 0, "Mia is no longer a moderator"},
		{[]string{"moderator", "add", "nobody", "--data-dir", dir}, 1, `no user "nobody"`},
		{[]string{"moderator", "promote", "mia"}, 1, "usage"},
		{[]string{"role", "grant", "roar", "moderator", "mia", "--data-dir", dir}, 0, "Mia is now a moderator of roar"},
		{[]string{"role", "list", "--data-dir", dir}, 0, "roar moderator: sees the reports"},
		{[]string{"role", "list", "roar", "--data-dir", dir}, 0, "  Mia (id 1, since "},
		{[]string{"role", "grant", "roar", "admin", "mia", "--data-dir", dir}, 1, `no role "admin" in app "roar"; the roles are: music moderator, roar moderator`},
		{[]string{"role", "grant", "rent", "moderator", "mia", "--data-dir", dir}, 1, `no role "moderator" in app "rent"`},
		{[]string{"role", "list", "meet", "--data-dir", dir}, 1, `the roles are: music moderator, roar moderator`},
		{[]string{"role", "revoke", "roar", "moderator", "mia", "--data-dir", dir}, 0, "Mia is no longer a moderator"},
		{[]string{"role", "list", "roar", "moderator", "--data-dir", dir}, 0, "(nobody)"},
		{[]string{"role", "grant", "roar", "moderator"}, 1, "usage: tutti role"},
		{[]string{"role", "promote"}, 1, "usage: tutti role"},
	}
	for _, c := range cases {
		out.Reset()
		errb.Reset()
		env.Args = c.args
		code := app.Run(ctx, env)
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.out) {
			t.Errorf("%v: %d %q %q; want %d and %q", c.args, code, out.String(), errb.String(), c.code, c.out)
		}
	}
	m, err = app.New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	u, err := m.Auth.ByUsername(ctx, "mia")
	if err != nil || u.Has("roar", "moderator") {
		t.Errorf("after add then remove: %+v, %v; want not a moderator", u, err)
	}
	pw, err := m.Auth.Demo(ctx)
	if err != nil || pw == "" {
		t.Fatalf("demo user: %q, %v", pw, err)
	}
	if pw2, err := m.Auth.Demo(ctx); err != nil || pw2 != "" {
		t.Errorf("second demo: %q, %v; want nothing new", pw2, err)
	}
}
