package meet

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The window of a poll of the longest span (MaxDays), as the import uses it.
var (
	hostileFrom = time.Date(2030, 3, 1, 8, 0, 0, 0, time.UTC)
	hostileTo   = hostileFrom.AddDate(0, 0, MaxDays)
)

func vcal(body string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//EN\r\n" + body + "END:VCALENDAR\r\n"
}

func vevent(uid, props string) string {
	return "BEGIN:VEVENT\r\nUID:" + uid + "\r\n" + props + "END:VEVENT\r\n"
}

// repeatTo repeats one event (numbered by %d) up to about n bytes.
func repeatTo(n int, format string) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// repeatN repeats one event (numbered by %d) n times.
func repeatN(n int, format string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// hostileCalendars are the worst files we could build for the import:
// each must be refused with a CalendarError or read, within the budget.
func hostileCalendars() map[string]string {
	const size = maxCalendarBytes - 200
	all := func(n int) string {
		var vs []string
		for i := 0; i < n; i++ {
			vs = append(vs, fmt.Sprint(i))
		}
		return strings.Join(vs, ",")
	}
	m := map[string]string{
		// The 199-byte file: every second since 2020.
		"secondly-far-back":  vcal(vevent("s", "DTSTART:20200101T000000Z\r\nDTEND:20200101T000001Z\r\nRRULE:FREQ=SECONDLY\r\n")),
		"secondly-1000-days": vcal(vevent("s", "DTSTART:20270605T000000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=SECONDLY;INTERVAL=7\r\n")),
		// rrule-go never returns from one step of this one.
		"secondly-unreachable":  vcal(vevent("s", "DTSTART:20200101T000000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=SECONDLY;INTERVAL=2;BYSECOND=1\r\n")),
		"secondly-sparse":       vcal(vevent("s", "DTSTART:19700101T000001Z\r\nDURATION:PT1S\r\nRRULE:FREQ=SECONDLY;BYHOUR=3;BYMINUTE=0;BYSECOND=0\r\n")),
		"secondly-count":        vcal(vevent("s", "DTSTART:19700101T000000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=SECONDLY;COUNT=2147483647;BYMINUTE=7\r\n")),
		"minutely-bysecond":     vcal(vevent("m", "DTSTART:20000101T000000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=MINUTELY;BYSECOND="+all(60)+"\r\n")),
		"minutely-count-limits": vcal(vevent("m", "DTSTART:19000101T000000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=MINUTELY;INTERVAL=7;COUNT=999999999;BYHOUR=1,13;BYMINUTE=1,2,3\r\n")),
		"hourly-expand":         vcal(vevent("h", "DTSTART:20300101T000000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=HOURLY;BYMINUTE="+all(60)+";BYSECOND="+all(60)+"\r\n")),
		"daily-every-second":    vcal(vevent("d", "DTSTART:20300101T000000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=DAILY;BYHOUR="+all(24)+";BYMINUTE="+all(60)+";BYSECOND="+all(60)+"\r\n")),
		"yearly-deep": vcal(vevent("y", "DTSTART:20300101T000000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=YEARLY;BYMONTH="+all(13)[2:]+
			";BYMONTHDAY=1,2,3,4,5,-1,-2,-3;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYYEARDAY=1,2,3,100,200,-1;BYHOUR="+all(24)+";BYMINUTE="+all(60)+";BYSECOND="+all(60)+";BYSETPOS=1,2,3,-1,-2,-3\r\n")),
		"setpos-never-count":  vcal(vevent("p", "DTSTART:19000101T090000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=DAILY;BYSETPOS=2;COUNT=10\r\n")),
		"setpos-yearly-count": vcal(vevent("p", "DTSTART:15000101T090000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30;BYSETPOS=1;COUNT=10\r\n")),
		"never-matches":       vcal(vevent("n", "DTSTART:19000101T090000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30;COUNT=5\r\n")),
		"daily-count-far":     vcal(vevent("c", "DTSTART:00010101T090000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=DAILY;BYDAY=MO;COUNT=2000000000\r\n")),
		"weekly-since-2015":   vcal(vevent("w", "DTSTART;TZID=Europe/Berlin:20150105T090000\r\nDTEND;TZID=Europe/Berlin:20150105T100000\r\nRRULE:FREQ=WEEKLY;BYDAY=MO\r\n")),
		"many-rrules":         vcal(repeatTo(size, "BEGIN:VEVENT\r\nUID:%d\r\nDTSTART:20000101T000000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30\r\nEND:VEVENT\r\n")),
		"many-secondly":       vcal(repeatTo(size, "BEGIN:VEVENT\r\nUID:%d\r\nDTSTART:20000101T000000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=SECONDLY;INTERVAL=86399\r\nEND:VEVENT\r\n")),
		"many-events":         vcal(repeatTo(size, "BEGIN:VEVENT\r\nDTSTART:20300302T%06dZ\r\nDURATION:PT1S\r\nEND:VEVENT\r\n")),
		"many-zones":          vcal(repeatTo(size, "BEGIN:VEVENT\r\nDTSTART;TZID=Nowhere/Z%d:20300302T090000\r\nDURATION:PT1S\r\nEND:VEVENT\r\n")),
		"same-zone":           vcal(repeatTo(size, "BEGIN:VEVENT\r\nUID:%d\r\nDTSTART;TZID=Europe/Berlin:20300302T090000\r\nDURATION:PT1S\r\nEND:VEVENT\r\n")),
		"exdate-flood": vcal(vevent("e", "DTSTART:20300301T090000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=DAILY\r\nEXDATE:"+
			strings.TrimSuffix(repeatTo(size-200, "20300301T%06dZ,"), ",")+"\r\n")),
		"rdate-flood": vcal(vevent("r", "DTSTART:20300301T090000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=YEARLY\r\nRDATE:"+
			strings.TrimSuffix(repeatTo(size-200, "20300302T%06dZ,"), ",")+"\r\n")),
		"overrides":          vcal(repeatTo(size, "BEGIN:VEVENT\r\nUID:x\r\nRECURRENCE-ID:20300301T%06dZ\r\nDTSTART:20300301T090000Z\r\nDURATION:PT1S\r\nEND:VEVENT\r\n")),
		"long-line":          vcal(vevent("l", "DTSTART:20300302T090000Z\r\nDURATION:PT1H\r\nSUMMARY:"+strings.Repeat("a", size-200)+"\r\n")),
		"folded":             vcal(vevent("f", "DTSTART:20300302T090000Z\r\nDURATION:PT1H\r\nSUMMARY:"+strings.Repeat("a\r\n ", (size-200)/4)+"\r\n")),
		"long-rrule":         vcal(vevent("r", "DTSTART:20300302T090000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=DAILY;BYHOUR="+strings.Repeat("1,", 3000)+"1\r\n")),
		"nested":             vcal(strings.Repeat("BEGIN:X\r\n", size/10) + strings.Repeat("END:X\r\n", size/10)),
		"many-lines":         vcal(vevent("l", "DTSTART:20300302T090000Z\r\n"+strings.Repeat("X:1\r\n", (size-200)/5))),
		"many-params":        vcal(vevent("p", "DTSTART:20300302T090000Z\r\nX"+strings.Repeat(";A=1", (size-200)/4)+":x\r\n")),
		"many-param-values":  vcal(vevent("p", "DTSTART:20300302T090000Z\r\nX;A="+strings.Repeat("1,", (size-200)/2)+"1:x\r\n")),
		"limit-lines":        vcal(vevent("l", "DTSTART:20300302T090000Z\r\n"+strings.Repeat("X:1\r\n", maxSeparators-20))),
		"limit-params":       vcal(vevent("p", "DTSTART:20300302T090000Z\r\nX"+strings.Repeat(";A=1", maxSeparators-20)+":x\r\n")),
		"limit-param-values": vcal(vevent("p", "DTSTART:20300302T090000Z\r\nX;A="+strings.Repeat("1,", maxSeparators-20)+"1:x\r\n")),
		"limit-mixed":        vcal(repeatN(maxComponents-1, "BEGIN:VEVENT\r\nDTSTART;A=1;C=2;D=3;E=4;F=5;G=6;H=7;I=8;J=9;K=1;L=2;M=3:20300302T%06dZ\r\nEND:VEVENT\r\n")),
		"too-big":            vcal(strings.Repeat("X-A:b\r\n", maxCalendarBytes/7+1)),
		"too-many":           vcal(repeatTo(size, "BEGIN:VALARM\r\nEND:VALARM\r\n")),
		// As many events as allowed, each as costly as allowed.
		"limit-weekly":      vcal(repeatN(maxComponents-1, "BEGIN:VEVENT\r\nDTSTART;TZID=Europe/Berlin:20150105T09%04d\r\nDURATION:PT1M\r\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=1,2,3\r\nEXDATE:20300302T010000Z,20300303T010000Z\r\nEND:VEVENT\r\n")),
		"limit-overrides":   vcal(repeatN(maxComponents-1, "BEGIN:VEVENT\r\nUID:x\r\nRECURRENCE-ID;TZID=Europe/Paris:20300301T%06d\r\nDTSTART;TZID=America/New_York:20300301T090000\r\nDURATION:PT1S\r\nRRULE:FREQ=DAILY\r\nX-PAD:abcdefghijklmnopq\r\nEND:VEVENT\r\n")),
		"limit-never":       vcal(repeatN(maxComponents-1, "BEGIN:VEVENT\r\nUID:%d\r\nDTSTART:20000101T000000Z\r\nDURATION:PT1S\r\nRRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30;BYHOUR=1,2,3,4,5,6,7,8,9,10,11\r\nEND:VEVENT\r\n")),
		"limit-props":       vcal(repeatN(maxComponents-1, "BEGIN:VEVENT\r\nDTSTART:20300302T%06dZ\r\nDURATION:PT1S\r\nA:1\r\nB:2\r\nC:3\r\nD:4\r\nE:5\r\nF:6\r\nG:7\r\nH:8\r\nI:9\r\nJ:1\r\nK:2\r\nL:3\r\nM:4\r\nN:5\r\nO:6\r\nP:7\r\nQ:8\r\nEND:VEVENT\r\n")),
		"limit-many-params": vcal(repeatN(maxComponents-1, "BEGIN:VEVENT\r\nDTSTART;A=1;B=2;C=3;D=4;E=5;F=6;G=7;H=8;I=9;J=1;K=2;L=3;M=4;N=5;O=6;P=7;Q=8;R=9;S=1;T=2:20300302T%06dZ\r\nEND:VEVENT\r\n")),
		"long-event":        vcal(vevent("l", "DTSTART:00010101T000000Z\r\nDTEND:99991231T000000Z\r\nRRULE:FREQ=HOURLY\r\n")),
	}
	return m
}

// Bounds on the work of one crafted file, in what a busy machine cannot
// inflate: heap allocations and bytes allocated (the worst file, limit-lines,
// makes 240k allocations and 27 MB; the rest at most 80k and 12 MB). The
// expansions are bounded by calendarBudget, which ParseBusy enforces itself;
// their time is BenchmarkParseBusyHostile's (cpu-ns/op, worst about 30 ms).
const (
	hostileMaxAllocs = 500_000
	hostileMaxBytes  = 64 << 20
)

// TestParseBusyHostile: every crafted file is refused with a message for the
// user or read, within the work budget; rrule-go took seconds (or forever)
// on several of them.
func TestParseBusyHostile(t *testing.T) {
	for name, ics := range hostileCalendars() {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := ParseBusy(context.Background(), strings.NewReader(ics), hostileFrom, hostileTo, MaxBusy)
				done <- err
			}()
			select {
			case err := <-done:
				var ce *CalendarError
				if err != nil && !errors.As(err, &ce) {
					t.Errorf("error %v; want nil or a CalendarError", err)
				}
			case <-time.After(time.Minute):
				// Not a time budget: a walk that never ends.
				t.Fatalf("still working after a minute")
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			ParseBusy(context.Background(), strings.NewReader(ics), hostileFrom, hostileTo, MaxBusy)
			runtime.ReadMemStats(&after)
			if n := after.Mallocs - before.Mallocs; n > hostileMaxAllocs {
				t.Errorf("%d allocations; want at most %d", n, hostileMaxAllocs)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > hostileMaxBytes {
				t.Errorf("%d bytes allocated; want at most %d", n, hostileMaxBytes)
			}
		})
	}
	// The legitimate ones are read, not refused.
	for _, name := range []string{"weekly-since-2015", "secondly-sparse", "never-matches"} {
		busy, err := ParseBusy(context.Background(), strings.NewReader(hostileCalendars()[name]), hostileFrom, hostileTo, MaxBusy)
		if err != nil || name == "weekly-since-2015" && len(busy) != 9 || name == "secondly-sparse" && len(busy) != 62 {
			t.Errorf("%s: %d busy, %v", name, len(busy), err)
		}
	}
}

// TestParseBusyContext: a cancelled request stops the work.
func TestParseBusyContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ParseBusy(ctx, strings.NewReader(hostileCalendars()["weekly-since-2015"]), hostileFrom, hostileTo, MaxBusy); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v; want context.Canceled", err)
	}
	// Cancelled while expanding: the budget's checks see it.
	w := &calendarWork{ctx: ctx, left: calendarBudget}
	r, _ := newRecurRule("FREQ=MINUTELY;BYHOUR=3", time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	if _, err := r.expand(w, hostileFrom, hostileTo); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled expansion: %v; want context.Canceled", err)
	}
}

// BenchmarkParseBusyHostile reports the cost of each crafted file (the
// time budget that TestParseBusyHostile no longer holds, since a loaded
// machine broke it: the worst should stay under 50 ms). cpu-ns/op is the process's CPU time (the
// garbage collector's included), which other work on the machine does not
// inflate as it does ns/op.
func BenchmarkParseBusyHostile(b *testing.B) {
	for name, ics := range hostileCalendars() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuTime()
			for i := 0; i < b.N; i++ {
				ParseBusy(context.Background(), strings.NewReader(ics), hostileFrom, hostileTo, MaxBusy)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
