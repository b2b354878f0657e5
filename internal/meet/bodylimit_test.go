package meet_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBodyLimits checks the routes with their own body limit (routes.go):
// the painted grid's JSON is capped at 512 KiB, below the server's 1 MiB
// default, and the calendar import above it. A body past its route's limit
// is refused with 413 (problem details for JSON), whether it announces its
// length or not, and writes nothing; a body under it is taken.
func TestBodyLimits(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, _ := s.createPoll("Limits")
		own := s.join(pub, "Ada")
		day := time.Now().AddDate(0, 0, 10).Format("2006-01-02")
		// grid is a valid availability JSON of exactly size bytes (padded
		// with whitespace, which JSON allows): only its size can refuse it.
		grid := func(size int, hhmm ...string) string {
			var b strings.Builder
			b.WriteString(`{"slots":[`)
			for i, h := range hhmm {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(`{"start":"` + slotAt(t, day, "Europe/Berlin", h) + `","tier":1}`)
			}
			b.WriteString("]")
			b.WriteString(strings.Repeat(" ", size-b.Len()-1))
			b.WriteString("}")
			return b.String()
		}
		saved := func() (n, tiers int) {
			t.Helper()
			if err := m.DB.QueryRow(context.Background(), "SELECT COUNT(*), COALESCE(SUM(tier), 0) FROM meet_timeframes").Scan(&n, &tiers); err != nil {
				t.Fatal(err)
			}
			return n, tiers
		}
		jsonHeader := http.Header{"Content-Type": {"application/json"}}

		under := grid(500<<10, "09:00")
		res, body := s.do("POST", own+"/availability", strings.NewReader(under), jsonHeader)
		if res.StatusCode != 200 {
			t.Fatalf("500 KiB availability: %d %s; want 200", res.StatusCode, body)
		}
		if n, _ := saved(); n != 1 {
			t.Fatalf("after a 500 KiB grid: %d timeframes; want 1", n)
		}

		over := grid(600<<10, "10:00", "11:00", "12:00")
		for _, c := range []struct {
			name string
			body io.Reader
		}{
			{"with Content-Length", strings.NewReader(over)},
			// An io.Reader of unknown length is sent chunked: the handler
			// reads until the limit stops it.
			{"chunked", io.MultiReader(strings.NewReader(over))},
		} {
			res, body := s.do("POST", own+"/availability", c.body, jsonHeader)
			if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(res.Header.Get("Content-Type"), "problem+json") ||
				!strings.Contains(body, "The request is too large.") {
				t.Errorf("600 KiB availability %s: %d %s %.200s; want 413 problem", c.name, res.StatusCode, res.Header.Get("Content-Type"), body)
			}
			if n, tiers := saved(); n != 1 || tiers != 1 {
				t.Errorf("after a refused 600 KiB grid %s: %d timeframes of tiers %d; want the 1 saved before", c.name, n, tiers)
			}
		}

		// The import takes a calendar a little past its own limit (1 MiB,
		// the server's default body limit) far enough to say so itself.
		upload := func(content string) (*http.Response, string) {
			var b bytes.Buffer
			mw := multipart.NewWriter(&b)
			fw, _ := mw.CreateFormFile("calendar", "cal.ics")
			fw.Write([]byte(content))
			mw.Close()
			return s.do("POST", own+"/busy", &b, http.Header{"Content-Type": {mw.FormDataContentType()}})
		}
		res, body = upload(strings.Repeat("X", 1<<20+100))
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "too large to import") {
			t.Errorf("calendar just over 1 MiB: %d; want 422 with the import's message", res.StatusCode)
		}
		res, _ = upload(strings.Repeat("X", 2<<20))
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("2 MiB calendar: %d; want 413", res.StatusCode)
		}
		var busy int
		if err := m.DB.QueryRow(context.Background(), "SELECT COUNT(*) FROM meet_busy").Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if busy != 0 {
			t.Errorf("%d busy times written by refused imports; want 0", busy)
		}
	})
}
