package waitlist

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/race/races"
)

// A lottery's messages after a redirect read as a lottery's: withdrawn
// before the draw; after it, off the list or the place given up, never
// "withdrawn" nor the sold-out words. (The pages themselves:
// race's TestLotteryReadsAsALottery.)
func TestLotteryFlashReadsAsALottery(t *testing.T) {
	flash := func(done string, e *races.Event) string {
		return flashWait(httptest.NewRequest("GET", "/?done="+done, nil), e)
	}
	draw := time.Date(2027, 3, 2, 11, 0, 0, 0, time.UTC)
	before := &races.Event{Name: "Marathon", Cap: 1, Lottery: true, DrawAt: &draw}
	if flash("left", before) != "You have withdrawn from the lottery." {
		t.Error("withdrawing before the draw is not told as such")
	}
	drawn := draw.Add(time.Hour)
	after := &races.Event{Name: "Marathon", Cap: 1, Lottery: true, DrawAt: &draw, DrawnAt: &drawn}
	got := flash("left", after) + flash("declined", after)
	for _, w := range []string{"You are off the list.", "You gave up the place"} {
		if !strings.Contains(got, w) {
			t.Errorf("the messages after the draw lack %q: %q", w, got)
		}
	}
	for _, n := range []string{"Sold out", "sold out", "waiting list", "1 places", "withdrawn"} {
		if strings.Contains(got, n) {
			t.Errorf("the messages after the draw say %q: %q", n, got)
		}
	}
}
