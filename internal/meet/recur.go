package meet

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/teambition/rrule-go"
)

// This file expands RRULEs (RFC 5545 section 3.3.10) within a window only,
// with a work budget: rrule-go iterates from DTSTART, one period at a time,
// and some rules never return from one step (FREQ=SECONDLY;INTERVAL=2;
// BYSECOND=1 with an even DTSTART), so it cannot be bounded from outside.
// Here the first period at or after the window is computed arithmetically
// (only COUNT needs the occurrences before the window, and those are counted
// in bulk where the rule allows it), every step spends a unit of the file's
// budget, and the request's context is checked as the budget goes.

// Budgets of one import; see BenchmarkParseBusyHostile for what they cost.
const (
	maxCalendarBytes = 1 << 20 // the upload limit of the import form
	calendarBudget   = 200_000 // work units (days, candidate times, values) per file
	maxOccurrences   = 20_000  // occurrences kept in the window, per file
	maxZones         = 20      // distinct TZIDs per file
	maxComponents    = 6_000   // BEGIN lines per file (events, alarms, zones)
	maxSeparators    = 80_000  // line breaks, semicolons and commas per file
	unitsPerEvent    = 8       // reading an event costs about as much as 8 candidate days
	unitsPerValue    = 2       // and an EXDATE or RDATE value as 2
)

// calendarWork is the budget of one file and the request's context.
type calendarWork struct {
	ctx   context.Context
	left  int
	since int // units spent since the context was last checked
	occ   int // occurrences kept
}

func (w *calendarWork) spend(n int) error {
	w.left -= n
	if w.left < 0 {
		return ErrCalendarTooComplex
	}
	if w.since += n; w.since >= 1024 {
		w.since = 0
		return w.ctx.Err()
	}
	return nil
}

// recurRule is an RRULE made ready for a bounded expansion: every default
// that RFC 5545 takes from DTSTART is made explicit, and the BYxxx lists
// are sets.
type recurRule struct {
	freq     rrule.Frequency
	interval int64
	count    int
	until    time.Time // zero: none
	loc      *time.Location
	start    time.Time // DTSTART, in loc
	startDay int64     // civil day number of DTSTART
	startSec int64     // DTSTART's wall clock in civil seconds (startDay*86400 + second of day)
	wkst     int       // 0 = Monday

	byMonth                [13]bool
	hasMonth               bool
	weekNo                 [2][54]bool // [0] positive, [1] negative
	hasWeekNo              bool
	yearDay                [2][367]bool
	hasYearDay             bool
	monthDay               [2][32]bool
	hasMonthDay            bool
	wday                   [7]bool // BYDAY without an ordinal (or ignored ordinal)
	nthWday                [2][7][54]bool
	hasDay                 bool
	hours, minutes, second []int // sorted; nil: every value (a limit of a sub-daily rule)
	hourSet                [24]bool
	minuteSet, secondSet   [60]bool
	setPos                 []int
}

var errBadRule = errors.New("bad RRULE")

// newRecurRule reads an RRULE value for an event starting at start (whose
// location is the event's zone).
func newRecurRule(value string, start time.Time) (*recurRule, error) {
	if len(value) > 4096 {
		return nil, errBadRule
	}
	opt, err := rrule.StrToROptionInLocation(value, start.Location())
	if err != nil {
		return nil, errBadRule
	}
	r := &recurRule{freq: opt.Freq, interval: int64(opt.Interval), count: opt.Count, until: opt.Until,
		loc: start.Location(), start: start, wkst: opt.Wkst.Day()}
	if r.freq < rrule.YEARLY || r.freq > rrule.SECONDLY || r.interval < 0 || r.count < 0 {
		return nil, errBadRule
	}
	if r.interval == 0 {
		r.interval = 1
	}
	if r.interval > 1_000_000 {
		return nil, errBadRule
	}
	y, m, d := start.Date()
	r.startDay = daysFromCivil(y, int(m), d)
	r.startSec = r.startDay*86400 + int64(start.Hour()*3600+start.Minute()*60+start.Second())

	in := func(v, lo, hi int, signed bool) bool {
		return v >= lo && v <= hi || signed && v <= -lo && v >= -hi
	}
	sign := func(v int) int {
		if v < 0 {
			return 1
		}
		return 0
	}
	abs := func(v int) int {
		if v < 0 {
			return -v
		}
		return v
	}
	for _, v := range opt.Bymonth {
		if !in(v, 1, 12, false) {
			return nil, errBadRule
		}
		r.byMonth[v], r.hasMonth = true, true
	}
	for _, v := range opt.Byweekno {
		if !in(v, 1, 53, true) {
			return nil, errBadRule
		}
		r.weekNo[sign(v)][abs(v)], r.hasWeekNo = true, true
	}
	for _, v := range opt.Byyearday {
		if !in(v, 1, 366, true) {
			return nil, errBadRule
		}
		r.yearDay[sign(v)][abs(v)], r.hasYearDay = true, true
	}
	for _, v := range opt.Bymonthday {
		if !in(v, 1, 31, true) {
			return nil, errBadRule
		}
		r.monthDay[sign(v)][abs(v)], r.hasMonthDay = true, true
	}
	for _, wd := range opt.Byweekday {
		n := wd.N()
		if !in(n, 1, 53, true) && n != 0 {
			return nil, errBadRule
		}
		r.hasDay = true
		if n == 0 || r.freq > rrule.MONTHLY {
			r.wday[wd.Day()] = true
		} else {
			r.nthWday[sign(n)][wd.Day()][abs(n)] = true
		}
	}
	for _, v := range opt.Bysetpos {
		if !in(v, 1, 366, true) {
			return nil, errBadRule
		}
		r.setPos = append(r.setPos, v)
	}
	// The defaults RFC 5545 takes from DTSTART.
	if !r.hasWeekNo && !r.hasYearDay && !r.hasMonthDay && !r.hasDay {
		switch r.freq {
		case rrule.YEARLY:
			if !r.hasMonth {
				r.byMonth[m], r.hasMonth = true, true
			}
			r.monthDay[0][d], r.hasMonthDay = true, true
		case rrule.MONTHLY:
			r.monthDay[0][d], r.hasMonthDay = true, true
		case rrule.WEEKLY:
			r.wday[weekdayOf(r.startDay)], r.hasDay = true, true
		}
	}
	var err2 error
	if r.hours, err2 = timeList(opt.Byhour, 23, r.freq < rrule.HOURLY, start.Hour(), r.hourSet[:]); err2 != nil {
		return nil, err2
	}
	if r.minutes, err2 = timeList(opt.Byminute, 59, r.freq < rrule.MINUTELY, start.Minute(), r.minuteSet[:]); err2 != nil {
		return nil, err2
	}
	if r.second, err2 = timeList(opt.Bysecond, 59, r.freq < rrule.SECONDLY, start.Second(), r.secondSet[:]); err2 != nil {
		return nil, err2
	}
	return r, nil
}

// timeList is a BYHOUR, BYMINUTE or BYSECOND list as a sorted set; an empty
// list is DTSTART's value when the rule expands it (def), every value (nil)
// when it limits.
func timeList(vs []int, max int, def bool, dtstart int, set []bool) ([]int, error) {
	if len(vs) == 0 {
		if !def {
			return nil, nil
		}
		vs = []int{dtstart}
	}
	var out []int
	for _, v := range vs {
		if v < 0 || v > max {
			return nil, errBadRule
		}
		if !set[v] {
			set[v] = true
			out = append(out, v)
		}
	}
	sort.Ints(out)
	return out, nil
}

// expand returns the rule's occurrences that start within [from, to], in
// order; it stops at the first one after to.
func (r *recurRule) expand(w *calendarWork, from, to time.Time) ([]time.Time, error) {
	if !r.until.IsZero() && r.until.Before(to) {
		to = r.until
	}
	if from.Before(r.start) {
		from = r.start
	}
	if to.Before(from) {
		return nil, nil
	}
	e := expansion{r: r, w: w, from: from, to: to, left: r.count}
	if r.freq >= rrule.HOURLY {
		return e.out, e.subDaily()
	}
	return e.out, e.daily()
}

type expansion struct {
	r        *recurRule
	w        *calendarWork
	from, to time.Time
	left     int // occurrences still allowed by COUNT; r.count == 0: no COUNT
	out      []time.Time
	done     bool
}

// emit takes a candidate in order; it says whether to go on.
func (e *expansion) emit(t time.Time) error {
	if t.Before(e.r.start) {
		return nil
	}
	if t.After(e.to) {
		e.done = true
		return nil
	}
	if !t.Before(e.from) {
		if e.w.occ++; e.w.occ > maxOccurrences {
			return ErrCalendarTooComplex
		}
		e.out = append(e.out, t)
	}
	if e.r.count > 0 {
		if e.left--; e.left == 0 {
			e.done = true
		}
	}
	return nil
}

func (e *expansion) at(day int64, sec int) time.Time {
	y, m, d := civilFromDays(day)
	return time.Date(y, time.Month(m), d, sec/3600, sec/60%60, sec%60, 0, e.r.loc)
}

// dayOf is the civil day number of t in the rule's zone.
func (r *recurRule) dayOf(t time.Time) int64 {
	y, m, d := t.In(r.loc).Date()
	return daysFromCivil(y, int(m), d)
}

// dayOK applies the day-level BYxxx parts to a day.
func (r *recurRule) dayOK(day int64) bool {
	y, m, d := civilFromDays(day)
	if r.hasMonth && !r.byMonth[m] {
		return false
	}
	ylen := 365
	if isLeap(y) {
		ylen = 366
	}
	yday := int(day-daysFromCivil(y, 1, 1)) + 1
	if r.hasYearDay && !r.yearDay[0][yday] && !r.yearDay[1][ylen+1-yday] {
		return false
	}
	mlen := monthLen(y, m)
	if r.hasMonthDay && !r.monthDay[0][d] && !r.monthDay[1][mlen+1-d] {
		return false
	}
	if r.hasWeekNo {
		wy, wn := r.weekNumber(day, y)
		if wy != y || !r.weekNo[0][wn] && !r.weekNo[1][weeksIn(wy, r.wkst)+1-wn] {
			return false
		}
	}
	if r.hasDay {
		wd := weekdayOf(day)
		if !r.wday[wd] {
			var pos, neg int // the ordinal of this weekday in its month or year
			if r.freq == rrule.MONTHLY || r.freq == rrule.YEARLY && r.hasMonth {
				pos, neg = (d-1)/7+1, (mlen-d)/7+1
			} else {
				pos, neg = (yday-1)/7+1, (ylen-yday)/7+1
			}
			if !r.nthWday[0][wd][pos] && !r.nthWday[1][wd][neg] {
				return false
			}
		}
	}
	return true
}

// weekNumber is the week of a day by RFC 5545's rule (week 1 is the first
// week starting on WKST with at least four days of the year) and the year
// the week belongs to.
func (r *recurRule) weekNumber(day int64, y int) (int, int) {
	w1 := week1(y, r.wkst)
	if day < w1 {
		y--
		w1 = week1(y, r.wkst)
	} else if next := week1(y+1, r.wkst); day >= next {
		return y + 1, 1
	}
	return y, int(day-w1)/7 + 1
}

func week1(y, wkst int) int64 {
	jan1 := daysFromCivil(y, 1, 1)
	back := int64((weekdayOf(jan1) - wkst + 7) % 7)
	if 7-back >= 4 {
		return jan1 - back
	}
	return jan1 - back + 7
}

func weeksIn(y, wkst int) int { return int(week1(y+1, wkst)-week1(y, wkst)) / 7 }

// daily expands YEARLY to DAILY rules, one period at a time.
func (e *expansion) daily() error {
	r := e.r
	ntimes := len(r.hours) * len(r.minutes) * len(r.second)
	lastDay := r.dayOf(e.to)
	fromDay := r.dayOf(e.from)
	k := int64(0) // index of the period, in units of the frequency, from DTSTART's
	if r.count == 0 {
		// Nothing before the window matters: start at its first period.
		k = r.periodIndex(fromDay)
		k -= k % r.interval
	} else if r.simple() {
		// One occurrence per period: the periods before the window are
		// counted, not walked.
		skip := r.periodIndex(fromDay)/r.interval - 1
		if skip > 0 {
			if skip >= int64(r.count) {
				return nil
			}
			e.left -= int(skip)
			k = skip * r.interval
		}
	}
	for ; !e.done; k += r.interval {
		first, end := r.period(k)
		if first > lastDay {
			return nil
		}
		if err := e.w.spend(1); err != nil {
			return err
		}
		if len(r.setPos) > 0 {
			if err := e.setPosPeriod(first, end, ntimes); err != nil {
				return err
			}
			continue
		}
		if r.count == 0 && first < fromDay {
			first = fromDay // nothing before the window matters
		}
		for day := first; day < end && !e.done; day++ {
			if err := e.w.spend(1); err != nil {
				return err
			}
			if day < r.startDay || !r.dayOK(day) {
				continue
			}
			if day > lastDay {
				e.done = true
				break
			}
			if r.count > 0 && day > r.startDay && day < fromDay {
				// Before the window: count the day's times in bulk.
				if e.left <= ntimes {
					e.left = 0
					e.done = true
					break
				}
				e.left -= ntimes
				continue
			}
			for _, h := range r.hours {
				for _, mi := range r.minutes {
					if err := e.w.spend(len(r.second)); err != nil {
						return err
					}
					for _, s := range r.second {
						if err := e.emit(e.at(day, h*3600+mi*60+s)); err != nil || e.done {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}

// simple says whether the rule has exactly one occurrence in every period,
// DTSTART's own in the first: then the periods before a window are counted.
func (r *recurRule) simple() bool {
	if len(r.setPos) > 0 || r.hasWeekNo || r.hasYearDay {
		return false
	}
	h, mi, s := r.start.Clock()
	startTime := func(l []int, v int) bool { return len(l) == 1 && l[0] == v }
	count := func(bs []bool) (n int) {
		for _, b := range bs {
			if b {
				n++
			}
		}
		return n
	}
	days := count(r.monthDay[0][:]) + count(r.monthDay[1][:])
	wdays := count(r.wday[:])
	for i := range r.nthWday {
		for j := range r.nthWday[i] {
			wdays += count(r.nthWday[i][j][:])
		}
	}
	daily := startTime(r.hours, h) && startTime(r.minutes, mi) && startTime(r.second, s)
	switch r.freq {
	case rrule.YEARLY:
		return daily && wdays == 0 && count(r.byMonth[:]) == 1 && r.byMonth[r.start.Month()] &&
			days == 1 && r.monthDay[0][r.start.Day()] && r.start.Day() <= 28
	case rrule.MONTHLY:
		return daily && wdays == 0 && !r.hasMonth && days == 1 && r.monthDay[0][r.start.Day()] && r.start.Day() <= 28
	case rrule.WEEKLY:
		return daily && !r.hasMonth && days == 0 && wdays == 1 && r.wday[weekdayOf(r.startDay)]
	case rrule.DAILY:
		return daily && !r.hasMonth && days == 0 && wdays == 0
	case rrule.HOURLY:
		return !r.hasMonth && days == 0 && wdays == 0 && r.hours == nil && startTime(r.minutes, mi) && startTime(r.second, s)
	case rrule.MINUTELY:
		return !r.hasMonth && days == 0 && wdays == 0 && r.hours == nil && r.minutes == nil && startTime(r.second, s)
	default:
		return !r.hasMonth && days == 0 && wdays == 0 && r.hours == nil && r.minutes == nil && r.second == nil
	}
}

// periodIndex is the index of the day's period (YEARLY to DAILY) from
// DTSTART's, in units of the frequency.
func (r *recurRule) periodIndex(day int64) int64 {
	if day < r.startDay {
		return 0
	}
	y, m, _ := civilFromDays(day)
	y0, m0, _ := civilFromDays(r.startDay)
	switch r.freq {
	case rrule.YEARLY:
		return int64(y - y0)
	case rrule.MONTHLY:
		return int64((y*12 + m) - (y0*12 + m0))
	case rrule.WEEKLY:
		return (r.weekStart(day) - r.weekStart(r.startDay)) / 7
	default:
		return day - r.startDay
	}
}

func (r *recurRule) weekStart(day int64) int64 {
	return day - int64((weekdayOf(day)-r.wkst+7)%7)
}

// period is the days [first, end) of the k-th period from DTSTART's.
func (r *recurRule) period(k int64) (int64, int64) {
	y0, m0, _ := civilFromDays(r.startDay)
	switch r.freq {
	case rrule.YEARLY:
		y := y0 + int(k)
		return daysFromCivil(y, 1, 1), daysFromCivil(y+1, 1, 1)
	case rrule.MONTHLY:
		mm := y0*12 + m0 - 1 + int(k)
		y, m := mm/12, mm%12+1
		first := daysFromCivil(y, m, 1)
		return first, first + int64(monthLen(y, m))
	case rrule.WEEKLY:
		first := r.weekStart(r.startDay) + 7*k
		if k == 0 {
			// The first week starts on DTSTART's day, as in rrule-go and
			// python-dateutil: it matters to BYSETPOS.
			return r.startDay, first + 7
		}
		return first, first + 7
	default:
		return r.startDay + k, r.startDay + k + 1
	}
}

// setPosPeriod applies BYSETPOS to one period: its candidates are its
// matching days times the day's times, in order, picked by index.
func (e *expansion) setPosPeriod(first, end int64, ntimes int) error {
	r := e.r
	if err := e.w.spend(int(end - first)); err != nil {
		return err
	}
	var days []int64
	for day := first; day < end; day++ {
		if r.dayOK(day) {
			days = append(days, day)
		}
	}
	total := len(days) * ntimes
	var picked []time.Time
	for _, p := range r.setPos {
		i := p - 1
		if p < 0 {
			i = total + p
		}
		if i < 0 || i >= total {
			continue
		}
		ti := i % ntimes
		s := r.second[ti%len(r.second)]
		ti /= len(r.second)
		mi := r.minutes[ti%len(r.minutes)]
		h := r.hours[ti/len(r.minutes)]
		picked = append(picked, e.at(days[i/ntimes], h*3600+mi*60+s))
	}
	if err := e.w.spend(len(picked)); err != nil {
		return err
	}
	sort.Slice(picked, func(i, j int) bool { return picked[i].Before(picked[j]) })
	for i, t := range picked {
		if i > 0 && t.Equal(picked[i-1]) {
			continue
		}
		if err := e.emit(t); err != nil || e.done {
			return err
		}
	}
	return nil
}

// subDaily expands HOURLY, MINUTELY and SECONDLY rules one day at a time:
// the day-level parts limit the days, BYHOUR (and BYMINUTE, BYSECOND below
// the frequency) limit the periods of the day, the others expand them.
func (e *expansion) subDaily() error {
	r := e.r
	unit := map[rrule.Frequency]int64{rrule.HOURLY: 3600, rrule.MINUTELY: 60, rrule.SECONDLY: 1}[r.freq]
	step := unit * r.interval                              // civil seconds between active periods
	startPeriod := r.startSec - floorMod(r.startSec, unit) // before 1970 too
	lastDay := r.dayOf(e.to)
	day := r.dayOf(e.from)
	if r.count > 0 {
		day = r.startDay
		if r.simple() {
			// One occurrence per period: count the periods before the window.
			y, m, d := e.from.In(r.loc).Date()
			fromSec := daysFromCivil(y, int(m), d) * 86400
			if skip := (fromSec-startPeriod)/step - 1; skip > 0 {
				if skip >= int64(r.count) {
					return nil
				}
				e.left -= int(skip)
				startPeriod += skip * step
				day = (startPeriod - floorMod(startPeriod, 86400)) / 86400
			}
		}
	}
	// The expansions within one period.
	var within []int // seconds from the period's start
	switch r.freq {
	case rrule.HOURLY:
		for _, mi := range r.minutes {
			for _, s := range r.second {
				within = append(within, mi*60+s)
			}
		}
	case rrule.MINUTELY:
		within = append(within, r.second...)
	default:
		within = []int{0}
	}
	limit := func(sec int) bool { // the BYHOUR/BYMINUTE/BYSECOND limits
		return (r.hours == nil || r.hourSet[sec/3600]) &&
			(r.freq < rrule.MINUTELY || r.minutes == nil || r.minuteSet[sec/60%60]) &&
			(r.freq < rrule.SECONDLY || r.second == nil || r.secondSet[sec%60])
	}
	n := func(l []int, all int) int {
		if l == nil {
			return all
		}
		return len(l)
	}
	// The candidate periods of a day are either walked in steps of the
	// interval or picked from the limits' product, whichever is fewer.
	product := n(r.hours, 24)
	if r.freq >= rrule.MINUTELY {
		product *= n(r.minutes, 60)
	}
	if r.freq == rrule.SECONDLY {
		product *= n(r.second, 60)
	}
	stepsPerDay := 86400/step + 1
	list := func(l []int, all int) []int {
		if l != nil {
			return l
		}
		out := make([]int, all)
		for i := range out {
			out[i] = i
		}
		return out
	}
	var products []int // the limits' product, seconds of the day, in order
	if int64(product) < stepsPerDay {
		ms, ss := []int{0}, []int{0}
		if r.freq >= rrule.MINUTELY {
			ms = list(r.minutes, 60)
		}
		if r.freq == rrule.SECONDLY {
			ss = list(r.second, 60)
		}
		for _, h := range list(r.hours, 24) {
			for _, mi := range ms {
				for _, s := range ss {
					products = append(products, h*3600+mi*60+s)
				}
			}
		}
	}
	period := func(dayStart int64, sec int) error {
		offs := e.pick(within)
		if err := e.w.spend(len(offs)); err != nil {
			return err
		}
		for _, off := range offs {
			if err := e.emit(e.at(dayStart/86400, sec+off)); err != nil || e.done {
				return err
			}
		}
		return nil
	}
	for ; day <= lastDay && !e.done; day++ {
		if err := e.w.spend(1); err != nil {
			return err
		}
		if day < r.startDay || !r.dayOK(day) {
			continue
		}
		dayStart := day * 86400
		if products != nil {
			if err := e.w.spend(len(products)); err != nil {
				return err
			}
			for _, sec := range products {
				p := dayStart + int64(sec)
				if p < startPeriod || (p-startPeriod)%step != 0 {
					continue
				}
				if err := period(dayStart, sec); err != nil || e.done {
					return err
				}
			}
			continue
		}
		// Walk: the first active period of the day, then every step.
		p := startPeriod
		if p < dayStart {
			p += (dayStart - p + step - 1) / step * step
		}
		for ; p < dayStart+86400 && !e.done; p += step {
			if err := e.w.spend(1); err != nil {
				return err
			}
			sec := int(p - dayStart)
			if !limit(sec) {
				continue
			}
			if err := period(dayStart, sec); err != nil {
				return err
			}
		}
	}
	return nil
}

// pick applies BYSETPOS to the expansions of one sub-daily period.
func (e *expansion) pick(within []int) []int {
	if len(e.r.setPos) == 0 {
		return within
	}
	var out []int
	for _, p := range e.r.setPos {
		i := p - 1
		if p < 0 {
			i = len(within) + p
		}
		if i >= 0 && i < len(within) {
			out = append(out, within[i])
		}
	}
	sort.Ints(out)
	return out
}

// daysFromCivil is the number of days from 1970-01-01 to a proleptic
// Gregorian date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	y = int(yoe + era*400)
	if m <= 2 {
		y++
	}
	return y, m, d
}

// floorMod is a mod b in [0, b), for a negative a too.
func floorMod(a, b int64) int64 {
	if m := a % b; m < 0 {
		return m + b
	}
	return a % b
}

// weekdayOf is a day's weekday, 0 = Monday (rrule-go's numbering).
func weekdayOf(day int64) int { return int(((day % 7) + 7 + 3) % 7) }

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func monthLen(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
