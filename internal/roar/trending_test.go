package roar_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// trendingBox is the Trending box of a page, and the tags it lists in order.
var (
	trendingBoxRE = regexp.MustCompile(`(?s)<section class="trending".*?</section>`)
	trendingTagRE = regexp.MustCompile(`<a href="/roar/tags/([^"]+)"[^>]*>#[^<]+</a>\s*<span class="muted small">(\d+) roars?</span>`)
)

func trendingOn(page string) string {
	var out []string
	for _, m := range trendingTagRE.FindAllStringSubmatch(trendingBoxRE.FindString(page), -1) {
		out = append(out, m[1]+":"+m[2])
	}
	return strings.Join(out, " ")
}

// TestTrendingBox: the timelines show the hashtags trending now, most used
// (recently) first, each linking to its tag page; a removed roar's tags no
// longer count; the box costs a page no statement.
func TestTrendingBox(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := user(t, m, "ann"), user(t, m, "bob")
		// statements is what a signed-in timeline page costs.
		statements := func() int64 {
			ann.get("/") // the session and user from memory, as in TestNoNPlusOne
			q0 := apptest.Queries(m)
			_, page := ann.get("/roar/?before=1000000")
			if !strings.Contains(page, "roar-main") {
				t.Fatal("no timeline page")
			}
			return apptest.Queries(m) - q0
		}
		if _, page := ann.get("/roar/"); strings.Contains(page, `class="trending"`) {
			t.Error("a Trending box with nothing trending")
		}
		without := statements()
		ann.roar("#Jazz tonight", "")
		bob.roar("more #jazz and #blues", "")
		spam := bob.roar("#spam #spam", "")
		// The board is computed again soon after a tagged roar, off the
		// request: wait for it.
		waitTrending := func(b *browser, path, want string) string {
			t.Helper()
			deadline := time.Now().Add(5 * time.Second)
			for {
				_, page := b.get(path)
				if got := trendingOn(page); got == want {
					return page
				} else if time.Now().After(deadline) {
					t.Fatalf("trending on %s = %q; want %q", path, got, want)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		waitTrending(ann, "/roar/", "jazz:2 blues:1 spam:1")
		page := waitTrending(bob, "/roar/tags/jazz", "jazz:2 blues:1 spam:1")
		if !strings.Contains(page, `<a href="/roar/tags/jazz" class="current">#jazz</a>`) {
			t.Error("the tag page does not mark its own tag in the box")
		}
		waitTrending(ann, "/roar/home", "jazz:2 blues:1 spam:1")
		if _, page := ann.get("/roar/u/bob"); strings.Contains(page, `class="trending"`) {
			t.Error("a profile shows the Trending box")
		}
		// The box is read from memory: the page costs what it cost without.
		if with := statements(); with != without {
			t.Errorf("a timeline ran %d statements with the box, %d without; want the same", with, without)
		}
		// A removed roar's tags stop counting.
		res, _ := bob.post("/roar/r/"+spam+"/delete", nil)
		wantStatus(t, res, 303, "delete")
		waitTrending(ann, "/roar/", "jazz:2 blues:1")
	})
}
