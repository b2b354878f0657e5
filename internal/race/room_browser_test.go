package race_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// A runner on a phone behind four others waits on the room's page, which
// shows their place, and is let into the wizard by the page itself when
// their turn comes: nothing to click.
func TestBrowserWaitingRoom(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"phone", 390, 844}, {"desktop", 1280, 900}} {
		t.Run(size.name, func(t *testing.T) {
			b := apptest.Browser(t, size.w, size.h)
			m := apptest.One(t)
			m.Auth.SetLimits(noLimits)
			slug := publishRace(t, signedIn(t, m, "dora"), "50")
			_, page := signedIn(t, m, "vic").Get("/race/r/" + slug)
			register := "/race/r/" + slug + "/register?event=" + eventID.FindStringSubmatch(page)[1]
			// The accounts first, so that the room's queue (one a second)
			// fills at once: eight ahead of rita leave her page seconds to
			// load on a busy machine and still find runners ahead.
			var ahead []*person
			for _, name := range []string{"ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal", "ida"} {
				ahead = append(ahead, signedIn(t, m, name))
			}
			signedIn(t, m, "rita") // her account; she signs in in the browser
			oneASecond(t, m)
			for i, c := range ahead {
				res, body := c.Get(register)
				if i == 0 {
					apptest.WantStatus(t, res, body, http.StatusOK)
				}
			}
			ctx, cancel := context.WithTimeout(b, 45*time.Second)
			defer cancel()
			if err := chromedp.Do(ctx,
				apptest.SignIn(m.URL(), "rita", "password-rita"),
				chromedp.Navigate(m.URL()+register),
				chromedp.WaitVisible(`.room`),
			); err != nil {
				apptest.Screenshot(t, b, "race-room-failed-"+size.name)
				t.Fatal(err)
			}
			text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(".room").innerText`))
			if err != nil {
				t.Fatal(err)
			}
			apptest.Screenshot(t, b, "race-room-"+size.name)
			if !strings.Contains(text, "in the queue") || !strings.Contains(text, "runners ahead of you") {
				t.Fatalf("the room's page: %q", text)
			}
			if err := chromedp.Do(ctx, chromedp.WaitVisible(`form[action$="/register"] button`)); err != nil {
				apptest.Screenshot(t, b, "race-room-stuck-"+size.name)
				t.Fatalf("not let in by the page itself: %v", err)
			}
		})
	}
}
