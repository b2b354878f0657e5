package app

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/module"
)

// TestModuleCommand: a module's command is found by name and parses the
// site's settings (and its own flags) through the core, keeping its
// positional arguments.
func TestModuleCommand(t *testing.T) {
	var got config.Config
	var rest []string
	var loud bool
	mods := []module.Module{{Name: "echo", Commands: map[string]module.Command{
		"echo": {Usage: "WORDS... [flags]", Help: "prints its words",
			Run: func(ctx context.Context, args []string, settings module.Parse, out io.Writer) error {
				var err error
				got, rest, err = settings(args, func(fs *flag.FlagSet) { fs.BoolVar(&loud, "loud", false, "shout") })
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(out, rest)
				return err
			}},
	}}}
	if _, ok := commandNamed(mods, "shout"); ok {
		t.Fatal("found a command no module declares")
	}
	c, ok := commandNamed(mods, "echo")
	if !ok {
		t.Fatal("the module's command is not found")
	}
	var out bytes.Buffer
	env := Env{Stdout: &out, Stderr: io.Discard, Getenv: func(k string) string { return map[string]string{"TUTTI_DATA_DIR": "/tmp/x"}[k] }}
	if err := runCommand(context.Background(), env, "echo", c, []string{"--loud", "--addr", "127.0.0.1:0", "hello", "world"}); err != nil {
		t.Fatal(err)
	}
	if !loud || got.Addr != "127.0.0.1:0" || got.DataDir != filepath.Clean("/tmp/x") || fmt.Sprint(rest) != "[hello world]" || out.String() != "[hello world]\n" {
		t.Errorf("got loud %v, addr %q, data %q, rest %v, out %q; want the flags, the environment and the words", loud, got.Addr, got.DataDir, rest, out.String())
	}
	if err := runCommand(context.Background(), env, "echo", c, []string{"--addr", "nope"}); err == nil {
		t.Error("a bad setting: no error")
	}
}
