package apptest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// Browser starts a headless Debian chromium for t (skipped unless
// TUTTI_TEST_BROWSER=1) with a window of width x height, and returns its
// context. Each call is a separate browser with its own cookies.
func Browser(t *testing.T, width, height int) context.Context {
	t.Helper()
	return BrowserWith(t, width, height)
}

// BrowserWith is Browser with more chromium options (flags such as
// --use-fake-device-for-media-stream).
func BrowserWith(t *testing.T, width, height int, more ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if os.Getenv("TUTTI_TEST_BROWSER") == "" {
		t.Skip("set TUTTI_TEST_BROWSER=1 to run browser tests (needs Debian's chromium)")
	}
	path := os.Getenv("TUTTI_CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	}
	opts = append(opts, more...)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// BrowserInZone is Browser whose pages run in zone (CDP's timezone
// override: Intl and Date in the page see that zone).
func BrowserInZone(t *testing.T, zone string, width, height int) context.Context {
	t.Helper()
	ctx := Browser(t, width, height)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone})
		return err
	}))
	if err != nil {
		t.Fatalf("timezone override %s: %v", zone, err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Intl.DateTimeFormat().resolvedOptions().timeZone`))
	if err != nil || got != zone {
		t.Fatalf("browser zone = %q (%v); want %s", got, err, zone)
	}
	return ctx
}

// Screenshot saves a full-page PNG as a test artifact in $TUTTI_ARTIFACTS
// (default: tutti-artifacts in the temp dir) and returns its path.
func Screenshot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	dir := os.Getenv("TUTTI_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "tutti-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	return path
}

// SignIn is signing in on the login page of the site at base, as a person
// types it: one action to put at the start of a browser test's steps.
func SignIn(base, login, password string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Navigate(base+"/account/login"),
		chromedp.WaitVisible(`#login`),
		chromedp.SendKeys(`#login`, login),
		chromedp.SendKeys(`#password`, password),
		chromedp.Submit(`#login`),
		chromedp.WaitNotPresent(`#password`),
	)
}

// WaitText polls the element sel until its text contains want (15 s at
// most), and returns the text, trimmed.
func WaitText(sel, want string) chromedp.Action[string] {
	get := chromedp.Evaluate[string](`(() => { const e = document.querySelector(` + "`" + sel + "`" + `); return e ? e.textContent : ""; })()`)
	return func(ctx context.Context, t *chromedp.Target) (string, error) {
		deadline := time.Now().Add(15 * time.Second)
		for {
			s, err := get(ctx, t)
			if err == nil && strings.Contains(s, want) {
				return strings.TrimSpace(s), nil
			}
			if time.Now().After(deadline) {
				return s, context.DeadlineExceeded
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// ClickAndLoad clicks sel (a link or a form's button) and waits until the
// page it leads to has loaded (15 s at most): a WaitVisible after a click
// can pass on the page being left.
func ClickAndLoad(sel string) chromedp.Action[chromedp.Void] {
	mark := chromedp.Evaluate[bool](`(window.__leaving = true)`)
	loaded := chromedp.Evaluate[bool](`window.__leaving !== true && document.readyState === "complete"`)
	click := chromedp.Click(sel)
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		var none chromedp.Void
		if _, err := mark(ctx, t); err != nil {
			return none, err
		}
		if _, err := click(ctx, t); err != nil {
			return none, err
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			ok, err := loaded(ctx, t)
			if err == nil && ok {
				return none, nil
			}
			if time.Now().After(deadline) {
				return none, context.DeadlineExceeded
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
