package rehearsals

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/load"
)

// The rehearsal's report counts runners who found the event or an item
// sold out as their outcome, not the site's failure (the success rate
// leaves them out); a run that registered nobody rates "-", not 0.0 %;
// each chart names its lines and its axes' units; and numbers never mix
// "," and "." as separators.
func TestRehearsalReportReadsOutcomes(t *testing.T) {
	res := &load.Result{Seconds: 61.5,
		Sessions: []load.Stat{{Name: "register", Count: 1200, Errors: 400}},
		Requests: []load.Stat{{Name: "race_page", Count: 23456, Mean: 12.25}},
		Failed:   map[string]int64{"register sold_out": 300, "register extra_sold_out": 60, "register 5xx": 40},
	}
	rep := summarize(res)
	if rep.SoldOut != 360 || rep.SuccessRate != 100*1200.0/1240 {
		t.Errorf("sold out %d, success rate %v; want 360 and %v", rep.SoldOut, rep.SuccessRate, 100*1200.0/1240)
	}
	page := render(t, rep)
	wantWords(t, page, []string{">96.8 %<", "found their choice sold out", ">360<", "found the event sold out: 300",
		"found an item they chose sold out: 60", "1\u202f200", "mean response time", "99th percentile (p99)",
		"up: milliseconds", "up: registrations per second", "up: requests per second", "across: seconds"}, []string{"1,200"})
	text := regexp.MustCompile(`(?s)<[^>]*>`).ReplaceAllString(page, " ")
	if regexp.MustCompile(`\d,\d`).MatchString(text) {
		t.Errorf("the report mixes separators: %s", regexp.MustCompile(`\d+,\d+`).FindAllString(text, -1))
	}

	none := summarize(&load.Result{Sessions: []load.Stat{{Name: "register", Count: 0, Errors: 5}},
		Failed: map[string]int64{"register 5xx": 5}})
	page = render(t, none)
	if !strings.Contains(page, ">-<") || strings.Contains(page, "0.0 %") {
		t.Errorf("a run that registered nobody: %.2000s", page)
	}
}

// render is rep's report as HTML.
func render(t *testing.T, rep *report) string {
	t.Helper()
	var b strings.Builder
	if err := rehearsalReport(rep).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// wantWords fails the test unless page has each of want and none of not.
func wantWords(t *testing.T, page string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("the report lacks %q:\n%.3000s", w, page)
		}
	}
	for _, n := range not {
		if strings.Contains(page, n) {
			t.Errorf("the report says %q:\n%.3000s", n, page)
		}
	}
}
