package meet_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// grantClipboard lets the pages of base read and write the clipboard, so a
// test can read back what a Copy button wrote.
func grantClipboard(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	// Start the browser (the first Run) before talking to it.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	b := chromedp.FromContext(ctx).Browser
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		err := b.Call(ctx, browser.CommandSetPermission, &browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true},
			Setting:    browser.PermissionSettingGranted, Origin: base,
		}, nil)
		if err != nil {
			t.Fatalf("grant %s: %v", name, err)
		}
	}
}

// TestBrowserComeBackToAnswers: a participant joins, browses away and comes
// back to the poll's public page in the same browser: it says "You answered
// as Ada: edit", which leads to her private page. Her page and the
// organizer's page show full links whose Copy buttons put the full URL on the
// clipboard. Leaving the poll forgets the participation.
func TestBrowserComeBackToAnswers(t *testing.T) {
	ctx := apptest.Browser(t, 1280, 900)
	m := apptest.One(t)
	base := m.URL()
	grantClipboard(t, ctx, base)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	run := func(a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		must(err)
		return v
	}

	// The organizer creates a poll (the admin page is the landing page).
	start := time.Now().AddDate(0, 0, 10).Format("2006-01-02")
	must(chromedp.Do(ctx,
		chromedp.Navigate(base+"/meet/polls/new"),
		chromedp.WaitVisible(`#title`),
		chromedp.SendKeys(`#title`, "Choir weekend"),
		chromedp.SetValue(`#start_date`, start),
		chromedp.SetValue(`#end_date`, start),
		chromedp.SetValue(`#day_start`, "10:00"),
		chromedp.SetValue(`#day_end`, "14:00"),
		chromedp.Submit(`#title`),
		chromedp.WaitVisible(`#public-link`),
	))
	adminLoc, err := url.Parse(run(chromedp.Location()))
	must(err)
	admin := base + adminLoc.Path
	pubURL := run(chromedp.Value(`#public-url`))
	pub := strings.TrimPrefix(pubURL, base)
	if !regexp.MustCompile(`^/meet/polls/[A-Za-z0-9_-]{22}$`).MatchString(pub) {
		t.Fatalf("public link %q is not a full URL on %s", pubURL, base)
	}

	// Ada joins: her private page shows its full link, with a Copy button.
	must(chromedp.Do(ctx,
		chromedp.Navigate(pubURL),
		chromedp.WaitVisible(`#name`),
		chromedp.SendKeys(`#name`, "Ada"),
		chromedp.Submit(`#name`),
		chromedp.WaitVisible(`#own-link`),
		chromedp.WaitVisible(`button[data-copy="own-link"]`),
	))
	own, err := url.Parse(run(chromedp.Location()))
	must(err)
	ownURL := base + own.Path
	if v := run(chromedp.Value(`#own-link`)); v != ownURL {
		t.Errorf("own page shows %q; want the full private link %q", v, ownURL)
	}
	copied := func(button, want string) {
		t.Helper()
		must(chromedp.Do(ctx,
			chromedp.Evaluate[chromedp.Void](`window.focus()`),
			chromedp.Click(button),
		))
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('`+button+`').textContent === "Copied"`,
			chromedp.WithPollingTimeout(5*time.Second))); err != nil {
			t.Fatalf("%s: no Copied state (%q): %v", button, run(chromedp.Text(button)), err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
		must(err)
		if got != want {
			t.Errorf("%s copied %q; want %q", button, got, want)
		}
	}
	copied(`button[data-copy="own-link"]`, ownURL)
	apptest.Screenshot(t, ctx, "meet-own-link")

	// She browses away and comes back to the public page.
	must(chromedp.Do(ctx,
		chromedp.Navigate(base+"/meet/"),
		chromedp.WaitVisible(`.meet-hero`),
		chromedp.Navigate(pubURL),
	))
	shown := func(ctx context.Context) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#my-answers a.edit-mine") !== null && !document.getElementById("my-answers").hidden`,
			chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatalf("the poll page does not show the remembered answers: %v", err)
		}
	}
	shown(ctx)
	if got := run(chromedp.Text(`#my-answers`)); got != "You answered as Ada: edit" {
		t.Errorf("poll page says %q; want %q", got, "You answered as Ada: edit")
	}
	apptest.Screenshot(t, ctx, "meet-you-answered")
	must(chromedp.Do(ctx, chromedp.Click(`#my-answers a.edit-mine`), chromedp.WaitVisible(`table.grid.paint`)))
	if loc := run(chromedp.Location()); loc != ownURL {
		t.Errorf("edit led to %q; want %q", loc, ownURL)
	}

	// Grace joins from elsewhere; the organizer copies her private link.
	grace := newSite(t, m).join(pub, "Grace")
	must(chromedp.Do(ctx, chromedp.Navigate(admin), chromedp.WaitVisible(`#participants button[data-copy]`)))
	for _, p := range []string{own.Path, grace} {
		id := "own-link-" + p[strings.LastIndex(p[:strings.LastIndex(p, "/")], "/")+1:strings.LastIndex(p, "/")]
		if v := run(chromedp.Value(`#` + id)); v != base+p {
			t.Errorf("admin page: %s = %q; want %q", id, v, base+p)
		}
		copied(`button[data-copy="`+id+`"]`, base+p)
	}
	copied(`button[data-copy="public-url"]`, pubURL)
	copied(`button[data-copy="admin-link"]`, admin)
	apptest.Screenshot(t, ctx, "meet-admin-links")

	// Ada leaves the poll: the browser forgets her answers.
	must(chromedp.Do(ctx,
		chromedp.Navigate(ownURL),
		chromedp.WaitVisible(`form[data-leave]`),
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Click(`form[data-leave] button`),
		chromedp.WaitVisible(`#join-form`),
	))
	// Module scripts have run once the document is complete.
	if n, err := chromedp.Run(ctx, chromedp.Poll[int](`document.readyState === "complete" && document.querySelectorAll("#my-answers li").length + 1`,
		chromedp.WithPollingTimeout(5*time.Second))); err != nil || n != 1 {
		t.Errorf("after leaving, the poll page still shows %d remembered answers (%v)", n-1, err)
	}

	// On a phone: join, come back, and the organizer's page.
	phone := apptest.Browser(t, 390, 844)
	must(chromedp.Do(phone,
		chromedp.Navigate(pubURL),
		chromedp.WaitVisible(`#name`),
		chromedp.SendKeys(`#name`, "Hedy"),
		chromedp.Submit(`#name`),
		chromedp.WaitVisible(`#own-link`),
	))
	apptest.Screenshot(t, phone, "meet-own-link-phone")
	must(chromedp.Do(phone, chromedp.Navigate(pubURL)))
	shown(phone)
	apptest.Screenshot(t, phone, "meet-you-answered-phone")
	must(chromedp.Do(phone, chromedp.Navigate(admin), chromedp.WaitVisible(`#participants button[data-copy]`)))
	apptest.Screenshot(t, phone, "meet-admin-links-phone")

	// The organizer removes Hedy: her browser's poll page forgets her.
	// Wait for the removal's own navigation to end (the admin page without
	// Hedy) before leaving, or the new navigation aborts it.
	must(chromedp.Do(phone,
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Click(`#participants li:last-child form[data-confirm] button`),
	))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		// An evaluation that meets the navigation fails: try again.
		gone, err := chromedp.Run(phone, chromedp.Evaluate[bool](`document.readyState === "complete" && !!document.querySelector("#participants") && !document.querySelector("#participants").textContent.includes("Hedy")`))
		if err == nil && gone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the organizer's page still lists Hedy after removing her (%v)", err)
		}
	}
	must(chromedp.Do(phone, chromedp.Navigate(pubURL)))
	// The page may reload itself meanwhile (a live update of the removal):
	// an evaluation that meets a navigation is tried again.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		n, err := chromedp.Run(phone, chromedp.Evaluate[int](`document.readyState === "complete" ? document.querySelectorAll("#my-answers li").length : -1`))
		if err == nil && n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the organizer removed Hedy, her poll page still shows %d remembered answers (%v)", n, err)
		}
	}
}

// TestBrowserEditConfirm: narrowing a poll's dates in the organizer's form
// shows who loses which times; "Save anyway" saves, and what fits is kept.
func TestBrowserEditConfirm(t *testing.T) {
	m := apptest.One(t)
	base := m.URL()
	s := newSite(t, m)
	admin := s.mustRedirect(s.post("/meet/polls", editForm("Europe/Berlin", "2030-01-16")))
	pub := admin[:strings.Index(admin, "/admin/")]
	for _, c := range []struct{ name, date, start, end, tier string }{
		{"Ada", "2030-01-14", "10:00", "11:00", "1"}, {"Grace", "2030-01-16", "09:00", "12:30", "2"}, {"Hedy", "2030-01-15", "14:00", "17:00", "3"},
	} {
		own := s.join(pub, c.name)
		s.mustRedirect(s.post(own+"/timeframes", url.Values{"date": {c.date}, "start": {c.start}, "end": {c.end}, "tier": {c.tier}, "tz": {"Europe/Berlin"}}))
		if c.name == "Ada" {
			s.mustRedirect(s.post(own+"/timeframes", url.Values{"date": {"2030-01-16"}, "start": {"15:00"}, "end": {"16:00"}, "tier": {"1"}, "tz": {"Europe/Berlin"}}))
		}
	}
	for _, size := range []struct {
		name string
		w, h int
	}{{"-phone", 390, 844}, {"", 1280, 900}} {
		ctx := apptest.Browser(t, size.w, size.h)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(chromedp.Do(ctx,
			chromedp.Navigate(base+admin+"?tz=Europe/Berlin"),
			chromedp.WaitVisible(`#end_date`),
			chromedp.SetValue(`#end_date`, "2030-01-15"),
			chromedp.SetValue(`#day_end`, "16:00"),
			chromedp.Click(`#poll-form button[type=submit]`),
			chromedp.WaitVisible(`#confirm-loss`),
		))
		got, err := chromedp.Run(ctx, chromedp.Text(`#confirm-loss ul`))
		must(err)
		for _, want := range []string{"Ada loses Wed 16 Jan, 15:00–16:00 (preferred)", "Grace loses Wed 16 Jan, 09:00–12:30 (fine)", "Hedy loses Tue 15 Jan, 16:00–17:00 (if need be)"} {
			if !strings.Contains(got, want) {
				t.Errorf("confirmation %q lacks %q", got, want)
			}
		}
		apptest.Screenshot(t, ctx, "meet-edit-confirm"+size.name)
		if size.name != "" {
			continue
		}
		must(chromedp.Do(ctx, chromedp.Click(`#save-anyway`), chromedp.WaitVisible(`.flash.ok`)))
		flash, err := chromedp.Run(ctx, chromedp.Text(`.flash.ok`))
		must(err)
		if !strings.Contains(flash, "no longer fit") {
			t.Errorf("after Save anyway the page says %q", flash)
		}
		end, err := chromedp.Run(ctx, chromedp.Value(`#end_date`))
		must(err)
		if end != "2030-01-15" {
			t.Errorf("end date after saving = %q; want 2030-01-15", end)
		}
	}
	_, body := s.get(pub)
	if !strings.Contains(body, "3 participants") {
		t.Errorf("participants were removed by the edit")
	}
}
