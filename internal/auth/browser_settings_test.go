package auth_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserRefusedSettingsKeepWhatWasTyped: in a browser (desktop and
// phone), a profile refused for a too-long display name comes back with
// the message beside the field and the name and bio as typed.
func TestBrowserRefusedSettingsKeepWhatWasTyped(t *testing.T) {
	m := apptest.One(t)
	base := m.URL()
	long := strings.Repeat("Zoë ", 12) + "Zoë-Zoë" // 55 characters
	for _, size := range []struct {
		name          string
		width, height int
	}{{"1200", 1200, 900}, {"390", 390, 844}} {
		t.Run(size.name, func(t *testing.T) {
			ctx := apptest.Browser(t, size.width, size.height)
			name := "kim" + size.name
			// The field's maxlength counts UTF-16 units, not the server's
			// characters; a script, an older browser or an API client can
			// send more: set the value as they would.
			err := chromedp.Do(ctx,
				apptest.SignUp(base, name, name+"@example.com", "password-"+name),
				chromedp.WaitVisible(`#display_name`),
				chromedp.SendKeys(`#bio`, "Plays the viola, <loudly>."),
			)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.getElementById("display_name").value = `+jsString(long)+`) !== ""`)); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.Click(`form.card button[type=submit]`), chromedp.WaitVisible(`#display_name-error`)); err != nil {
				t.Fatal(err)
			}
			got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[document.getElementById("display_name").value, document.getElementById("bio").value,
				document.getElementById("display_name-error").textContent, document.getElementById("display_name").getAttribute("aria-invalid")]`))
			if err != nil {
				t.Fatal(err)
			}
			want := []string{long, "Plays the viola, <loudly>.", "The display name can have at most 50 characters; this one has 55.", "true"}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("refused form shows %q; want %q", got, want)
			}
			if u, err := m.Auth.ByUsername(context.Background(), name); err != nil || u.DisplayName != "" || u.Bio != "" {
				t.Fatalf("after the refused save: %+v, %v; want nothing saved", u, err)
			}
			apptest.Screenshot(t, ctx, "account-settings-refused-"+size.name)
		})
	}
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
