package config

import (
	"flag"
	"io"
	"log/slog"
	"strings"
	"testing"
)

func parse(t *testing.T, env map[string]string, args ...string) (Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var c Config
	Flags(fs, &c, func(k string) string { return env[k] })
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	return c, c.Validate()
}

func TestDefaultsEnvAndFlags(t *testing.T) {
	c, err := parse(t, nil)
	if err != nil || c.Addr != "127.0.0.1:8080" || !strings.HasSuffix(c.DataDir, "tutti-data") || c.DatabaseURL != "" || c.LogLevel != slog.LevelInfo {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	env := map[string]string{"TUTTI_ADDR": "127.0.0.1:9000", "TUTTI_LOG_LEVEL": "warn", "TUTTI_DATABASE_URL": "postgres://x@127.0.0.1/db"}
	c, err = parse(t, env)
	if err != nil || c.Addr != "127.0.0.1:9000" || c.LogLevel != slog.LevelWarn || c.DatabaseURL != "postgres://x@127.0.0.1/db" {
		t.Errorf("env: %+v %v", c, err)
	}
	c, err = parse(t, env, "--addr", "127.0.0.1:9001")
	if err != nil || c.Addr != "127.0.0.1:9001" {
		t.Errorf("flag over env: %q %v", c.Addr, err)
	}
}

func TestValidate(t *testing.T) {
	for _, args := range [][]string{
		{"--addr", "nope"}, {"--database-url", "mysql://x"}, {"--log-format", "xml"}, {"--cache-bytes", "10"}, {"--data-dir", ""},
		{"--redis-url", "127.0.0.1:6379"}, {"--session-store", "redis"}, {"--session-store", "memcached"},
		{"--memory-limit", "lots"}, {"--memory-limit", "1MiB"},
		{"--smtp-url", "smtp://127.0.0.1:25"},                   // without --base-url
		{"--database-replica-url", "postgres://r@127.0.0.1/db"}, // a replica of SQLite
		{"--database-url", "postgres://p@127.0.0.1/db", "--database-replica-url", "mysql://r"},
	} {
		if _, err := parse(t, nil, args...); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
}

func TestSessionStoreFollowsRedis(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "db"},
		{[]string{"--redis-url", "redis://127.0.0.1:6379/0"}, "redis"},
		{[]string{"--redis-url", "redis://127.0.0.1:6379/0", "--session-store", "db"}, "db"},
	} {
		got, err := parse(t, nil, c.args...)
		if err != nil || got.SessionStore != c.want {
			t.Errorf("%v: session store %q (%v), want %q", c.args, got.SessionStore, err, c.want)
		}
	}
}

func TestMemoryLimitSetting(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, nil, "auto"},
		{map[string]string{"TUTTI_MEMORY_LIMIT": "off"}, nil, "off"},
		{map[string]string{"TUTTI_MEMORY_LIMIT": "off"}, []string{"--memory-limit", "1GiB"}, "1GiB"},
	} {
		got, err := parse(t, c.env, c.args...)
		if err != nil || got.MemoryLimit != c.want {
			t.Errorf("%v %v: memory limit %q (%v); want %q", c.env, c.args, got.MemoryLimit, err, c.want)
		}
	}
}

func TestStorageURL(t *testing.T) {
	c, err := parse(t, map[string]string{"TUTTI_STORAGE_URL": "s3://key:s3cret-value@127.0.0.1:19000/uploads?secure=false"})
	if err != nil || c.StorageURL != "s3://key:s3cret-value@127.0.0.1:19000/uploads?secure=false" {
		t.Errorf("TUTTI_STORAGE_URL: %q %v; want it kept", c.StorageURL, err)
	}
	for _, u := range []string{"/var/uploads", "s3://key@127.0.0.1:19000/uploads", "s3://key:s3cret-value@127.0.0.1:19000/", "s3://key:s3cret-value@host/uploads?acl=x"} {
		_, err := parse(t, nil, "--storage-url", u)
		if err == nil {
			t.Errorf("--storage-url %s: accepted", u)
		} else if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("--storage-url %s: error %q shows the secret", u, err)
		}
	}
}

func TestDatabaseReplicaURL(t *testing.T) {
	env := map[string]string{"TUTTI_DATABASE_URL": "postgres://p@127.0.0.1/db", "TUTTI_DATABASE_REPLICA_URL": "postgres://r@127.0.0.1:5433/db"}
	c, err := parse(t, env)
	if err != nil || c.DatabaseReplicaURL != "postgres://r@127.0.0.1:5433/db" {
		t.Errorf("replica url %q, %v; want the variable's", c.DatabaseReplicaURL, err)
	}
}

func TestNATSPrefix(t *testing.T) {
	c, err := parse(t, map[string]string{"TUTTI_NATS_PREFIX": "site1.blue-2."})
	if err != nil || c.NATSPrefix != "site1.blue-2." {
		t.Errorf("TUTTI_NATS_PREFIX: %q %v; want it kept", c.NATSPrefix, err)
	}
	for _, p := range []string{"site1", ".site1.", "site1..", "a.*.", "a.>.", "a b."} {
		if _, err := parse(t, nil, "--nats-prefix", p); err == nil {
			t.Errorf("--nats-prefix %q: accepted", p)
		}
	}
}
