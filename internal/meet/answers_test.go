package meet_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestTimeframeFormMerges: the same timeframe twice and an overlapping one
// through the no-JavaScript form are listed once each, merged, as the grid
// shows them.
func TestTimeframeFormMerges(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, _ := s.createPoll("Merge")
		ada := s.join(pub, "Ada")
		day := time.Now().AddDate(0, 0, 10).Format("2006-01-02")
		tf := url.Values{"date": {day}, "start": {"09:00"}, "end": {"11:00"}, "tier": {"2"}, "tz": {"Europe/Berlin"}}
		s.mustRedirect(s.post(ada+"/timeframes", tf))
		s.mustRedirect(s.post(ada+"/timeframes", tf))
		tf.Set("start", "10:00")
		tf.Set("end", "12:00")
		tf.Set("tier", "1")
		s.mustRedirect(s.post(ada+"/timeframes", tf))
		_, body := s.get(ada)
		list := grab(body, `<ul class="timeframes">`)
		list = list[:strings.Index(list, "</ul>")]
		if n := strings.Count(list, "<li>"); n != 2 {
			t.Errorf("%d timeframes listed; want 2 (09:00–10:00 fine, 10:00–12:00 preferred):\n%s", n, list)
		}
		if !strings.Contains(list, "09:00–10:00 · fine") || !strings.Contains(list, "10:00–12:00 · preferred") {
			t.Errorf("merged timeframes not listed as 09:00–10:00 fine and 10:00–12:00 preferred:\n%s", list)
		}
	})
}
