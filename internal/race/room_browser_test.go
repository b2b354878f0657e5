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
			oneASecond(t, m)
			_, page := signedIn(t, m, "vic").Get("/race/r/" + slug)
			register := "/race/r/" + slug + "/register?event=" + eventID.FindStringSubmatch(page)[1]
			for _, name := range []string{"ann", "ben", "cat", "dan"} {
				res, body := signedIn(t, m, name).Get(register)
				if name == "ann" {
					apptest.WantStatus(t, res, body, http.StatusOK)
				}
			}
			signedIn(t, m, "rita") // her account; she signs in in the browser
			ctx, cancel := context.WithTimeout(b, 30*time.Second)
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
