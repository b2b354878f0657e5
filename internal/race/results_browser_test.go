package race_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserResults: a director imports results from a file and publishes
// them on a desktop; a runner on a phone opens them from the race page,
// types in the search box, picks a suggestion and lands on that runner.
func TestBrowserResults(t *testing.T) {
	dora := apptest.Browser(t, 1280, 900)
	rita := apptest.Browser(t, 390, 844) // a phone
	m := apptest.One(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	dir := signedIn(t, m, "dora")
	slug := publishRace(t, dir, "500")
	_, page := dir.Get("/race/r/" + slug)
	ev := eventID.FindStringSubmatch(page)[1]
	admin := "/race/r/" + slug + "/admin/events/" + ev + "/results"
	file := filepath.Join(t.TempDir(), "results.csv")
	must(os.WriteFile(file, []byte(finishers(57, map[int]string{2: "Zoë Ångström", 5: "Zoltán Dvořák", 9: "Chloé Zorn"})), 0o644))
	bad := filepath.Join(t.TempDir(), "bad.csv")
	must(os.WriteFile(bad, []byte("bib;name;time\n1;Ann;1:02:03\n1;Bo;1:03:04\n3;Cy;soon\n4;;1:05:00\n"), 0o644))

	base := m.URL()
	must(chromedp.Do(dora,
		apptest.SignIn(base, "dora", "password-dora"),
		chromedp.Navigate(base+"/race/r/"+slug+"/admin"),
		chromedp.Click(`a[href="`+admin+`"]`),
		chromedp.WaitVisible(`#file`),
		chromedp.SetUploadFiles(`#file`, []string{bad}),
		chromedp.Click(`form[enctype] button[type=submit]`),
		chromedp.WaitVisible(`#file-error`),
	))
	apptest.Screenshot(t, dora, "race-results-import-refused")
	must(chromedp.Do(dora,
		chromedp.SetUploadFiles(`#file`, []string{file}),
		chromedp.Click(`form[enctype] button[type=submit]`),
		chromedp.WaitVisible(`.flash.ok`),
		chromedp.Click(`form[action$="/publish"] button`),
		chromedp.WaitVisible(`form[action$="/unpublish"]`),
	))
	apptest.Screenshot(t, dora, "race-results-admin")
	got, err := chromedp.Run(dora, chromedp.Text(`main`))
	must(err)
	if !strings.Contains(got, "57 results, published") {
		t.Errorf("results admin: %q", got)
	}
	must(chromedp.Do(dora, chromedp.Navigate(base+"/race/r/"+slug+"/results/"+ev+"?page=3"), chromedp.WaitVisible(`.results-table`)))
	apptest.Screenshot(t, dora, "race-results-desktop")

	must(chromedp.Do(rita,
		chromedp.Navigate(base+"/race/r/"+slug),
		chromedp.WaitVisible(`.event a[href$="/results/`+ev+`"]`),
	))
	apptest.Screenshot(t, rita, "race-results-link-phone")
	must(chromedp.Do(rita,
		chromedp.Click(`.event a[href$="/results/`+ev+`"]`),
		chromedp.WaitVisible(`.results-table`),
	))
	apptest.Screenshot(t, rita, "race-results-phone")
	// Typing asks for suggestions; they fill the list under the box.
	must(chromedp.Do(rita,
		chromedp.SendKeys(`#q`, "zo"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#runner-names option").length === 3`, chromedp.WithPollingTimeout(10*time.Second)),
	))
	opts, err := chromedp.Run(rita, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#runner-names option")].map(o => o.value)`))
	must(err)
	if strings.Join(opts, "|") != "Zoë Ångström #2|Zoltán Dvořák #5|Chloé Zorn #9" {
		t.Errorf("suggestions: %q", opts)
	}
	// Picking one (as the browser's list does) shows that runner.
	must(chromedp.Do(rita,
		chromedp.Evaluate[chromedp.Void](`{const q = document.querySelector("#q"); q.value = "Zoltán Dvořák #5";
			q.dispatchEvent(new InputEvent("input", {inputType: "insertReplacementText", bubbles: true}));}`),
		chromedp.WaitVisible(`.results-found`),
	))
	got, err = chromedp.Run(rita, chromedp.Text(`.results-table tbody`))
	must(err)
	if !strings.Contains(got, "Zoltán Dvořák") || strings.Count(got, "\n") > 1 {
		t.Errorf("after picking a suggestion: %q", got)
	}
	apptest.Screenshot(t, rita, "race-results-search-phone")
	// Without the script the form still searches.
	res, body := dir.Get("/race/r/" + slug + "/results/" + ev + "?q=chlo")
	apptest.WantStatus(t, res, body, http.StatusOK)
	if !strings.Contains(body, "Chloé Zorn") {
		t.Errorf("form search: %.2000s", body)
	}
}
