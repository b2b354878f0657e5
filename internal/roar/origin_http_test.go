package roar_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

var fromField = regexp.MustCompile(`<input type="hidden" name="from" value="([^"]*)"`)

// from is the compose form's hidden "from" on page ("" if none).
func from(page string) string {
	if m := fromField.FindStringSubmatch(page); m != nil {
		return html.UnescapeString(m[1])
	}
	return ""
}

// A roar refused (too long) comes back on the page it was sent from, a tag
// page, home, a profile, a thread or everyone's timeline, with the text as
// typed and the message under the field; the form shown again still
// knows that page, so the next send returns there. A roar accepted goes
// back there too. Only roar's own pages are a way back: anything else
// (another site, another app, a path that climbs out) is everyone's
// timeline.
func TestRefusedRoarComesBackWhereItWasSent(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := user(t, m, "ann"), user(t, m, "bob")
		root := bob.roar("Who runs on #Sunday?", "")
		long := strings.Repeat("y", 281)
		for _, tc := range []struct{ origin, heading string }{
			{"/roar/tags/sunday", `<h1 class="roar-title">#sunday</h1>`},
			{"/roar/home", `<h1 class="roar-title">Home</h1>`},
			{"/roar/", `<h1 class="roar-title">Everyone, newest first</h1>`},
			{"/roar/u/bob", `@bob`},
			{"/roar/r/" + root, `<h1 class="roar-title">Thread</h1>`},
		} {
			if tc.origin != "/roar/u/bob" && tc.origin != "/roar/r/"+root { // a profile has no form; a thread's is a reply
				_, page := ann.get(tc.origin)
				if got := from(page); got != tc.origin {
					t.Errorf("%s: the form's from = %q; want the page", tc.origin, got)
				}
			}
			res, page := ann.post("/roar/roars", url.Values{"body": {"#sunday " + long}, "from": {tc.origin}})
			wantStatus(t, res, http.StatusUnprocessableEntity, tc.origin+": a roar too long")
			if !strings.Contains(page, tc.heading) {
				t.Errorf("%s: the refused roar came back on another page: %.1500s", tc.origin, page)
			}
			if !strings.Contains(page, ">#sunday "+long+"</textarea>") || !regexp.MustCompile(`</textarea>\s*<input type="hidden" name="from"[^>]*>\s*<p class="field-error" id="body-error" role="alert">A roar can have at most 280 characters`).MatchString(page) {
				t.Errorf("%s: the text is not kept, or the message is not under it: %.3000s", tc.origin, page)
			}
			again := from(page)
			if again != tc.origin {
				t.Errorf("%s: the form shown again has from = %q", tc.origin, again)
			}
			res, page = ann.post("/roar/roars", url.Values{"body": {"Me, on " + tc.origin}, "from": {again}})
			if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || loc != tc.origin {
				t.Errorf("%s: the roar sent again: %d to %q; want 303 to the page: %.300s", tc.origin, res.StatusCode, loc, page)
			}
		}
		// A refused reply: its thread, as before.
		res, page := ann.post("/roar/roars", url.Values{"body": {long}, "reply_to": {root}, "from": {"/roar/tags/sunday"}})
		wantStatus(t, res, http.StatusUnprocessableEntity, "a reply too long")
		if !strings.Contains(page, `<h1 class="roar-title">Thread</h1>`) || !strings.Contains(page, ">"+long+"</textarea>") {
			t.Errorf("a refused reply: not its thread with the text: %.1500s", page)
		}
		// Not a roar page: everyone's timeline, never elsewhere (another
		// poster: posting is limited to bursts of ten).
		ann = user(t, m, "cy")
		for _, bad := range []string{"https://evil.example/roar/", "//evil.example/roar/", "/\\evil.example/roar/", "/account/settings",
			"/roar/../account/settings", "/roar/r/1/delete", "/roar/u/bob/block", "javascript:alert(1)", "/roar/roars", ""} {
			res, page := ann.post("/roar/roars", url.Values{"body": {long}, "from": {bad}})
			wantStatus(t, res, http.StatusUnprocessableEntity, bad)
			if !strings.Contains(page, `<h1 class="roar-title">Everyone, newest first</h1>`) || from(page) != "/roar/" {
				t.Errorf("from %q: refused, not on everyone's timeline (from %q)", bad, from(page))
			}
			res, page = ann.post("/roar/roars", url.Values{"body": {"Fine, from " + bad}, "from": {bad}})
			if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || loc != "/roar/" {
				t.Errorf("from %q: %d to %q; want 303 to /roar/: %.300s", bad, res.StatusCode, loc, page)
			}
		}
		// A roar page that is not there (any more): refused, everyone's timeline.
		for _, gone := range []string{"/roar/r/999999", "/roar/u/nobody", "/roar/tags/" + strings.Repeat("t", 200)} {
			_, page := ann.post("/roar/roars", url.Values{"body": {long}, "from": {gone}})
			if !strings.Contains(page, `<h1 class="roar-title">Everyone, newest first</h1>`) || !strings.Contains(page, ">"+long+"</textarea>") {
				t.Errorf("from %q: refused, not on everyone's timeline with the text", gone)
			}
		}
	})
}
