package app_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/ops"
)

func TestJobsAndOperatorCommands(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Addr, cfg.DataDir = "127.0.0.1:0", dir
	m, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Auth.Create(ctx, auth.Signup{Username: "Opal", Email: "opal@example.com", Password: "password1"}); err != nil {
		t.Fatal(err)
	}
	var dead int64
	err = m.DB.WithTx(ctx, func(tx *db.Tx) error {
		return db.Scan(tx.QueryRow(ctx, `INSERT INTO jobs (kind, payload, state, attempts, max_attempts, run_at, last_error, created_at, updated_at)
			VALUES ('mail.send', '{}', 'dead', 8, 8, 0, 'smtp: 550 no such user', 0, 0) RETURNING id`), &dead)
	})
	if err != nil {
		t.Fatal(err)
	}
	m.Close()

	env := func(out, errb *bytes.Buffer) app.Env {
		return app.Env{Stdout: out, Stderr: errb, Getenv: func(string) string { return "" }, Version: "test"}
	}
	cases := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"jobs", "--data-dir", dir}, 0, "ready 0, running 0, dead 1"},
		{[]string{"jobs", "list", "dead", "--data-dir", dir}, 0, "smtp: 550 no such user"},
		{[]string{"jobs", "list", "lost", "--data-dir", dir}, 1, "want ready, running or dead"},
		{[]string{"jobs", "retry", "x", "--data-dir", dir}, 1, "want a number"},
		{[]string{"jobs", "retry", "999", "--data-dir", dir}, 1, "no dead job 999"},
		{[]string{"jobs", "retry", fmt.Sprint(dead), "--data-dir", dir}, 0, "is ready again"},
		{[]string{"jobs", "--data-dir", dir}, 0, "ready 1, running 0, dead 0"},
		{[]string{"operator", "add", "opal", "--data-dir", dir}, 0, "Opal is now an operator"},
		{[]string{"operator", "add", "nobody", "--data-dir", dir}, 1, `no user "nobody"`},
		{[]string{"operator", "grant", "opal"}, 1, "usage"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		e := env(&out, &errb)
		e.Args = c.args
		code := app.Run(ctx, e)
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.out) {
			t.Errorf("tutti %s: code %d, output %q %q; want %d and %q", strings.Join(c.args, " "), code, out.String(), errb.String(), c.code, c.out)
		}
	}
	d, err := db.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	u, _ := auth.New(auth.Deps{DB: d})
	opal, _ := u.ByUsername(ctx, "opal")
	if is, err := ops.IsOperator(ctx, d, opal.ID); !is || err != nil {
		t.Errorf("opal operator: %v, %v; want true", is, err)
	}
}
