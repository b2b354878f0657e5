package app_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/meet"
	"github.com/tutti-dev/tutti/internal/testenv"
)

// TestAssetsExport exports the static files as `tutti assets export DIR`
// does, then checks, against a running server, that every asset a page
// references (the start page, each app's start page, a poll) is in DIR
// under its URL with the bytes the server serves, its .gz with the bytes
// served gzipped, and that every file in DIR is one the server serves.
func TestAssetsExport(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := app.Run(context.Background(), app.Env{Args: []string{"assets", "export", dir},
		Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if code != 0 || !strings.HasPrefix(stdout.String(), "wrote ") {
		t.Fatalf("tutti assets export: exit %d, %q %q; want 0 and a summary", code, stdout.String(), stderr.String())
	}
	m := apptest.Start(t, "")
	pub, _, err := apptest.AppOf[*meet.App](t, m).Demo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	fetch := func(path, encoding string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", m.URL()+path, nil)
		req.Header.Set("Accept-Encoding", encoding)
		res, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	body := func(res *http.Response) []byte {
		t.Helper()
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	refs := map[string]bool{}
	for _, page := range []string{"/", "/roar/", "/meet/", pub, "/account/login"} {
		res := fetch(page, "identity")
		b := body(res)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d; want 200", page, res.StatusCode)
		}
		for _, u := range assetRefs(t, b) {
			refs[u] = true
		}
	}
	for _, want := range []string{"/static/", "/roar/static/", "/meet/static/"} {
		found := false
		for u := range refs {
			found = found || strings.HasPrefix(u, want)
		}
		if !found {
			t.Errorf("no page references an asset under %s (refs %v)", want, refs)
		}
	}
	for u := range refs {
		file, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(u)))
		if err != nil {
			t.Errorf("%s: not exported: %v", u, err)
			continue
		}
		if served := body(fetch(u, "identity")); !bytes.Equal(file, served) {
			t.Errorf("%s: exported %d bytes, served %d different ones", u, len(file), len(served))
		}
		res := fetch(u, "gzip")
		served := body(res)
		gz, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(u)) + ".gz")
		if res.Header.Get("Content-Encoding") == "gzip" {
			if err != nil || !bytes.Equal(gz, served) {
				t.Errorf("%s.gz: %d bytes (%v); want the %d gzip bytes served", u, len(gz), err, len(served))
			}
		} else if err == nil {
			t.Errorf("%s.gz exported, but the server serves %s uncompressed", u, u)
		}
	}

	n := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".gz") {
			return err
		}
		n++
		if st, _ := d.Info(); st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v; want 0644 (nginx's workers read it)", p, st.Mode().Perm())
		}
		rel, _ := filepath.Rel(dir, p)
		u := "/" + filepath.ToSlash(rel)
		res := fetch(u, "identity")
		if b := body(res); res.StatusCode != 200 || !bytes.Equal(b, mustRead(t, p)) {
			t.Errorf("exported %s: the server answers %d with other bytes; want 200 and the same", u, res.StatusCode)
		}
		return nil
	})
	if err != nil || n < len(refs) {
		t.Errorf("walked %d exported files (%v); want at least the %d referenced", n, err, len(refs))
	}

	t.Run("behind nginx", func(t *testing.T) {
		base := startNginx(t, dir, strings.TrimPrefix(m.URL(), "http://"))
		for u := range refs {
			for _, enc := range []string{"identity", "gzip"} {
				req, _ := http.NewRequest("GET", base+u, nil)
				req.Header.Set("Accept-Encoding", enc)
				res, err := raw.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				got := body(res)
				want := body(fetch(u, enc))
				// tutti's Assets sets no Last-Modified: nginx's file
				// module does, so the answer came from DIR.
				if res.StatusCode != 200 || res.Header.Get("Last-Modified") == "" || !bytes.Equal(got, want) {
					t.Errorf("nginx %s (%s): %d, Last-Modified %q, %d bytes; want 200 from DIR with tutti's %d bytes",
						u, enc, res.StatusCode, res.Header.Get("Last-Modified"), len(got), len(want))
				}
			}
		}
		// Anything else still reaches tutti.
		res, err := raw.Get(base + "/healthz")
		if err != nil || res.StatusCode != 200 {
			t.Errorf("nginx /healthz: %v %v; want tutti's 200", res, err)
		}
		if res != nil {
			res.Body.Close()
		}
	})

	code = app.Run(context.Background(), app.Env{Args: []string{"assets", "export"}, Stdout: io.Discard, Stderr: io.Discard,
		Getenv: func(string) string { return "" }})
	if code == 0 {
		t.Error("tutti assets export without DIR: exit 0; want an error")
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assetRefs are the local /.../static/ URLs in a page's href and src
// attributes.
func assetRefs(t *testing.T, page []byte) []string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		for _, a := range n.Attr {
			if (a.Key == "href" || a.Key == "src") && strings.HasPrefix(a.Val, "/") && strings.Contains(a.Val, "/static/") {
				out = append(out, a.Val)
			}
		}
	}
	return out
}

// startNginx serves the exported dir for /static/ and /NAME/static/ as the
// docs/configuration.md says, everything else from tutti at upstream, on a
// port that 127.0.0.1:0 gave (tried again if another process took it
// before nginx); without nginx, testenv.Program skips or fails the test.
func startNginx(t *testing.T, dir, upstream string) string {
	t.Helper()
	bin := testenv.Program(t, "nginx", "/usr/sbin/nginx")
	tmp := t.TempDir()
	for range 10 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		conf := fmt.Sprintf(`daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
	include /etc/nginx/mime.types;
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	server {
		listen %[2]s;
		location ~ ^/(static|[a-z]+/static)/ {
			root %[3]s;
			gzip_static on;
			add_header Cache-Control "public, max-age=31536000, immutable";
			try_files $uri @tutti;
		}
		location @tutti { proxy_pass http://%[4]s; }
		location / { proxy_pass http://%[4]s; }
	}
}
`, tmp, addr, dir, upstream)
		cf := filepath.Join(tmp, "nginx.conf")
		if err := os.WriteFile(cf, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-p", tmp, "-c", cf)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		for range 100 {
			select {
			case <-exited:
				log, _ := os.ReadFile(filepath.Join(tmp, "error.log"))
				t.Logf("nginx on %s exited: %s %s", addr, out.String(), log)
			case <-time.After(50 * time.Millisecond):
				if c, err := net.Dial("tcp", addr); err == nil {
					c.Close()
					t.Cleanup(func() { cmd.Process.Kill(); <-exited })
					return "http://" + addr
				}
				continue
			}
			break
		}
		cmd.Process.Kill()
		<-exited
	}
	t.Fatal("nginx did not start on any of 10 free ports")
	return ""
}
