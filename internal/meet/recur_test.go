package meet

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teambition/rrule-go"
)

func TestCivilDays(t *testing.T) {
	for _, d := range []time.Time{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1600, 2, 29, 0, 0, 0, 0, time.UTC),
		time.Date(2030, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 3, 1, 0, 0, 0, 0, time.UTC)} {
		n := daysFromCivil(d.Year(), int(d.Month()), d.Day())
		if want := d.Unix() / 86400; n != want {
			t.Errorf("daysFromCivil(%s) = %d; want %d", d.Format(time.DateOnly), n, want)
		}
		if y, m, dd := civilFromDays(n); y != d.Year() || m != int(d.Month()) || dd != d.Day() {
			t.Errorf("civilFromDays(%d) = %d-%d-%d; want %s", n, y, m, dd, d.Format(time.DateOnly))
		}
		if got, want := weekdayOf(n), (int(d.Weekday())+6)%7; got != want {
			t.Errorf("weekdayOf(%s) = %d; want %d", d.Format(time.DateOnly), got, want)
		}
	}
}

// TestRecurMatchesRRuleGo compares the bounded expander with rrule-go (which
// walks from DTSTART) on rules of the kinds calendars export, with DTSTART
// near the window so that rrule-go stays cheap.
func TestRecurMatchesRRuleGo(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	berlin, _ := time.LoadLocation("Europe/Berlin")
	from, to := time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 5, 1, 0, 0, 0, 0, time.UTC)
	pick := func(n, lo, hi int, signed bool) string {
		var vs []string // distinct: rrule-go repeats an occurrence for a repeated value
		for i := 0; i < 1+rng.Intn(n); i++ {
			v := fmt.Sprint(lo + rng.Intn(hi-lo+1))
			if signed && rng.Intn(3) == 0 {
				v = "-" + v
			}
			if !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
		}
		return strings.Join(vs, ",")
	}
	days := []string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"}
	dead := 0
	for i := 0; i < 1500; i++ {
		freq := []string{"YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY"}[rng.Intn(6)]
		parts := []string{"FREQ=" + freq}
		sub := freq == "HOURLY" || freq == "MINUTELY"
		if !sub && rng.Intn(2) == 0 {
			parts = append(parts, fmt.Sprintf("INTERVAL=%d", 1+rng.Intn(4)))
		}
		if rng.Intn(3) == 0 {
			parts = append(parts, "BYMONTH="+pick(3, 1, 12, false))
		}
		if rng.Intn(3) == 0 && freq != "WEEKLY" {
			parts = append(parts, "BYMONTHDAY="+pick(3, 1, 31, true))
		}
		if rng.Intn(4) == 0 && freq == "YEARLY" {
			parts = append(parts, "BYYEARDAY="+pick(3, 1, 366, true))
		}
		if rng.Intn(2) == 0 {
			// rrule-go (as python-dateutil) intersects the plain and the
			// ordinal days of one BYDAY where RFC 5545 unites them: one
			// kind per rule here.
			nth := (freq == "MONTHLY" || freq == "YEARLY") && rng.Intn(2) == 0
			var ds []string
			for j := 0; j < 1+rng.Intn(3); j++ {
				d := days[rng.Intn(7)]
				if slices.ContainsFunc(ds, func(s string) bool { return strings.HasSuffix(s, d) }) {
					continue
				}
				if nth {
					n := 1 + rng.Intn(4)
					if freq == "YEARLY" && !strings.Contains(strings.Join(parts, ";"), "BYMONTH=") {
						n = 1 + rng.Intn(50)
					}
					if rng.Intn(2) == 0 {
						n = -n
					}
					d = fmt.Sprint(n) + d
				}
				ds = append(ds, d)
			}
			parts = append(parts, "BYDAY="+strings.Join(ds, ","))
		}
		if rng.Intn(4) == 0 {
			parts = append(parts, "BYHOUR="+pick(2, 0, 23, false))
		}
		if rng.Intn(5) == 0 && freq != "MINUTELY" {
			parts = append(parts, "BYMINUTE="+pick(2, 0, 59, false))
		}
		if rng.Intn(5) == 0 && !sub {
			parts = append(parts, "BYSETPOS="+pick(2, 1, 5, true))
		}
		if rng.Intn(3) == 0 {
			parts = append(parts, fmt.Sprintf("COUNT=%d", 1+rng.Intn(60)))
		} else if rng.Intn(3) == 0 {
			parts = append(parts, "UNTIL=20300415T120000Z")
		}
		if rng.Intn(4) == 0 {
			parts = append(parts, "WKST="+days[rng.Intn(7)])
		}
		value := strings.Join(parts, ";")
		loc := time.UTC
		if rng.Intn(2) == 0 {
			loc = berlin
		}
		start := time.Date(2030, time.Month(1+rng.Intn(3)), 1+rng.Intn(28), rng.Intn(24), 15*rng.Intn(4), 0, 0, loc)
		if sub {
			start = time.Date(2030, 2, 27+rng.Intn(4), rng.Intn(24), rng.Intn(60), 0, 0, loc)
		}
		r, err := newRecurRule(value, start)
		if err != nil {
			t.Fatalf("%s: %v", value, err)
		}
		from, to := from, to
		if sub {
			to = from.Add(50 * time.Hour)
		}
		got, err := r.expand(&calendarWork{ctx: context.Background(), left: calendarBudget}, from, to)
		if err != nil {
			t.Fatalf("%s: %v", value, err)
		}
		// rrule-go walks to the year 9999 when a rule has no occurrence
		// left (BYSETPOS=5 of a week of two days): such rules are left out.
		later := to.AddDate(10, 0, 0)
		if sub {
			later = to.AddDate(0, 0, 10)
		}
		open := *r
		open.count, open.until = 0, time.Time{}
		if rest, err := open.expand(&calendarWork{ctx: context.Background(), left: 10 * calendarBudget}, to.Add(time.Second), later); err == nil && len(rest) == 0 {
			dead++
			continue
		}
		opt, _ := rrule.StrToROptionInLocation(value, loc)
		opt.Dtstart = start
		rr, err := rrule.NewRRule(*opt)
		if err != nil {
			t.Fatalf("%s: rrule-go: %v", value, err)
		}
		want := rr.Between(from, to, true)
		if len(got) != len(want) {
			t.Errorf("%s from %s: %d occurrences; rrule-go %d\n got %v\nwant %v", value, start, len(got), len(want), first(got), first(want))
			continue
		}
		for j := range got {
			if !got[j].Equal(want[j]) {
				t.Errorf("%s from %s: occurrence %d = %s; rrule-go %s", value, start, j, got[j], want[j])
				break
			}
		}
	}
	if dead > 500 {
		t.Errorf("%d of 1500 rules left out; want a comparison of most", dead)
	}
}

func first(ts []time.Time) []time.Time {
	if len(ts) > 5 {
		return ts[:5]
	}
	return ts
}

// TestRecurFarBack: a rule whose DTSTART is years before the window costs
// no more than one near it, and still finds its occurrences.
func TestRecurFarBack(t *testing.T) {
	from, to := time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		rule  string
		start time.Time
		n     int
	}{
		{"FREQ=WEEKLY;BYDAY=MO", time.Date(2015, 1, 5, 9, 0, 0, 0, time.UTC), 9},
		{"FREQ=WEEKLY;COUNT=1000", time.Date(2015, 1, 5, 9, 0, 0, 0, time.UTC), 9},
		{"FREQ=WEEKLY;COUNT=700", time.Date(2015, 1, 5, 9, 0, 0, 0, time.UTC), 0}, // ends in 2028
		{"FREQ=DAILY;INTERVAL=3", time.Date(1900, 1, 1, 9, 0, 0, 0, time.UTC), 21},
		{"FREQ=YEARLY", time.Date(1950, 3, 17, 0, 0, 0, 0, time.UTC), 1},
		{"FREQ=MONTHLY;BYDAY=-1FR", time.Date(2001, 1, 1, 18, 0, 0, 0, time.UTC), 2},
		{"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", time.Date(2001, 1, 1, 18, 0, 0, 0, time.UTC), 2},
		{"FREQ=HOURLY;INTERVAL=7;COUNT=1000000", time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), 209},
		{"FREQ=SECONDLY;INTERVAL=86400", time.Date(1990, 1, 1, 12, 0, 0, 0, time.UTC), 61},
		{"FREQ=SECONDLY;INTERVAL=86400;COUNT=20000", time.Date(1990, 1, 1, 12, 0, 0, 0, time.UTC), 61},
		{"FREQ=MINUTELY;BYHOUR=12;BYMINUTE=0", time.Date(1990, 1, 1, 12, 0, 0, 0, time.UTC), 61},
		{"FREQ=HOURLY;INTERVAL=5", time.Date(1960, 5, 5, 10, 30, 0, 0, time.UTC), 293},
		{"FREQ=HOURLY;INTERVAL=5;COUNT=200000", time.Date(1960, 5, 5, 10, 30, 0, 0, time.UTC), 293},
		{"FREQ=MINUTELY;INTERVAL=97;BYSECOND=7", time.Date(1969, 12, 31, 23, 59, 0, 0, time.UTC), 906},
	} {
		r, err := newRecurRule(c.rule, c.start)
		if err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		w := &calendarWork{ctx: context.Background(), left: calendarBudget}
		got, err := r.expand(w, from, to)
		if err != nil || len(got) != c.n {
			t.Errorf("%s from %s: %d occurrences, %v; want %d", c.rule, c.start.Format(time.DateOnly), len(got), err, c.n)
		}
		if c.start.Year() < 1970 || strings.HasPrefix(c.rule, "FREQ=HOURLY") {
			// Cheap enough for rrule-go's walk from DTSTART.
			opt, _ := rrule.StrToROption(c.rule)
			opt.Dtstart = c.start
			rr, _ := rrule.NewRRule(*opt)
			if want := rr.Between(from, to, true); len(want) != len(got) || len(got) > 0 && !got[0].Equal(want[0]) {
				t.Errorf("%s from %s: %d occurrences from %v; rrule-go %d from %v", c.rule, c.start, len(got), first(got), len(want), first(want))
			}
		}
		if spent := calendarBudget - w.left; spent > 5000 {
			t.Errorf("%s from %s: %d work units; want at most 5000", c.rule, c.start.Format(time.DateOnly), spent)
		}
	}
}
