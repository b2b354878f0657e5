package music_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/app/apptest/openapitest"
)

// TestPostingRateLimitPages: past the posting burst (10), the share form
// (a link or an audio) comes back as 429 with Retry-After, the wait in the
// page and what was typed; past the comments' burst (20), the comment form
// too; nothing is written.
func TestPostingRateLimitPages(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := signUp(t, m, "ann"), signUp(t, m, "bob")
		first := ann.share("https://example.com/first", "", "public")
		shared := 1 + untilLimited(t, 10-1, func(i int) (*http.Response, string) {
			return ann.Post("/music/posts", url.Values{"url": {fmt.Sprint("https://example.com/", i)}, "comment": {"one more #late"}})
		}, "posting", func(body string) {
			if !strings.Contains(body, "https://example.com/") || !strings.Contains(body, "one more #late") {
				t.Errorf("the refused share form lost what was typed:\n%s", body)
			}
		})
		res, body := ann.upload("tone.wav", fixture(t, "tone.wav"), map[string]string{"comment": "a memo"}, nil)
		wantLimited(t, res, body, "posting")
		if !strings.Contains(body, `id="audio-error"`) || !strings.Contains(body, "a memo") {
			t.Errorf("the refused audio form has no message at its field, or lost the comment:\n%s", body)
		}
		if n := count(t, m, "music_posts"); n != int64(shared) {
			t.Errorf("%d posts after the refusals; want the %d shared", n, shared)
		}
		if n := count(t, m, "media_files"); n != 0 {
			t.Errorf("%d media files after a refused upload; want 0", n)
		}

		commented := untilLimited(t, 20, func(i int) (*http.Response, string) {
			return bob.Post("/music/p/"+first+"/comments", url.Values{"body": {fmt.Sprint("comment ", i)}})
		}, "commenting", func(body string) {
			if !strings.Contains(body, `value="comment `) || !strings.Contains(body, `id="body-error"`) {
				t.Errorf("the refused comment form lost the text or the message:\n%s", body)
			}
		})
		if n := count(t, m, "music_comments"); n != int64(commented) {
			t.Errorf("%d comments after the refusal; want the %d written", n, commented)
		}
	})
}

// untilLimited sends try(0), try(1), ... until one is refused (429, as
// wantLimited says, then page checks its body): the first burst must pass
// (a redirect or 201), and a refusal must come within 10 more. It returns
// how many passed.
func untilLimited(t *testing.T, burst int, try func(i int) (*http.Response, string), doing string, page func(body string)) int {
	t.Helper()
	for i := range burst + 10 {
		res, body := try(i)
		if res.StatusCode == http.StatusTooManyRequests && i >= burst {
			wantLimited(t, res, body, doing)
			page(body)
			return i
		}
		if res.StatusCode != http.StatusSeeOther && res.StatusCode != http.StatusCreated {
			t.Fatalf("%s, try %d of a burst of %d: status %d; want a success\n%.2000s", doing, i+1, burst, res.StatusCode, body)
		}
	}
	t.Fatalf("%s: %d tries in a row were never limited", doing, burst+10)
	return 0
}

// TestPostingRateLimitAPI: the API answers a write past its bucket with
// 429, Retry-After and the wait as problem details (as openapi.json
// says), and writes nothing.
func TestPostingRateLimitAPI(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := apiUser(t, m, "ann"), apiUser(t, m, "bob")
		song := apiShare(ann, "https://example.com/song", "", "public")
		problem := func(body string) {
			var p openapitest.Problem
			if err := json.Unmarshal([]byte(body), &p); err != nil || p.Status != http.StatusTooManyRequests {
				t.Errorf("the refusal is not problem details with its status: %v\n%s", err, body)
			}
		}
		api := func(c *openapitest.Caller, path string, in func(i int) any) func(i int) (*http.Response, string) {
			return func(i int) (*http.Response, string) {
				res, b := c.Send("POST", path, in(i), nil, false)
				c.Check(res, b, res.StatusCode, nil) // whatever it is, the document must allow it
				return res, string(b)
			}
		}
		shared := 1 + untilLimited(t, 10-1, api(ann, "/music/api/posts", func(i int) any {
			return map[string]string{"url": fmt.Sprint("https://example.com/", i)}
		}), "posting", problem)
		commented := untilLimited(t, 20, api(bob, "/music/api/posts/"+itoa(song.ID)+"/comments", func(i int) any {
			return map[string]string{"body": fmt.Sprint("c", i)}
		}), "commenting", problem)
		if n, c := count(t, m, "music_posts"), count(t, m, "music_comments"); n != int64(shared) || c != int64(commented) {
			t.Errorf("%d posts, %d comments after the refusals; want %d, %d", n, c, shared, commented)
		}
	})
}

// wantLimited checks a refused write's answer: 429, a Retry-After of a
// second or more, and the wait's message in the body.
func wantLimited(t *testing.T, res *http.Response, body, doing string) {
	t.Helper()
	apptest.WantStatus(t, res, body, http.StatusTooManyRequests)
	if ra := res.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("429 without a useful Retry-After: %q", ra)
	}
	if want := "You are " + doing + " too fast"; !strings.Contains(body, want) {
		t.Errorf("the refusal does not say %q:\n%s", want, body)
	}
}
