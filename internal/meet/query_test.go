package meet_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestMalformedCursorIs400: a poll page's malformed ?after= or ?before=
// answers 400 naming the parameter, instead of quietly showing the first
// page; a well-formed cursor still works.
func TestMalformedCursorIs400(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, _ := s.createPoll("Cursors")
		for _, c := range []struct{ query, param string }{
			{"after=abc!", "after"},
			{"after=%20", "after"},
			{"before=***", "before"},
			{"before=" + strings.Repeat("A", 80), "before"},
		} {
			res, body := s.get(pub + "?" + c.query)
			if res.StatusCode != http.StatusBadRequest {
				t.Errorf("?%s: status %d; want 400", c.query, res.StatusCode)
				continue
			}
			if !strings.Contains(body, "The "+c.param+" parameter must be") || strings.Contains(body, "marked fields") {
				t.Errorf("?%s: page lacks the plain message:\n%.800s", c.query, body)
			}
		}
		if res, body := s.get(pub + "?after=MQ"); res.StatusCode != http.StatusOK { // "1" in base64
			t.Errorf("a well-formed cursor: status %d; want 200\n%.500s", res.StatusCode, body)
		}
	})
}
