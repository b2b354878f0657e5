package race

import (
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/walltime"
)

// wallTime reads a form's date and time of day in loc (walltime's rule)
// for the field key of f: a malformed one gets the message bad; a time the
// clock skips that day is told (as meet tells it), not moved silently to
// when the clock jumps.
func wallTime(f map[string]string, key, date, clock string, loc *time.Location, bad string) time.Time {
	t, k, err := walltime.Parse(date, clock, loc)
	switch {
	case err != nil:
		f[key] = bad
	case k == walltime.Skipped:
		f[key] = walltime.SkipNote(t, loc) + ": " + strings.TrimSpace(clock) + " does not exist that day. Choose another time."
	}
	return t
}

// decimalComma turns an amount typed with a decimal comma ("12,50") or
// with thousands separators ("1,250.00", "1.250,00", "1 250,50") into the
// dotted form parseMoney reads ("12.50", "1250.00", "1250.50"). Commas
// alone separate decimals when one or two digits follow the last one
// ("12,5", "12,50"), and group thousands otherwise ("1,250").
func decimalComma(s string) string {
	s = strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "").Replace(s)
	dot, comma := strings.LastIndex(s, "."), strings.LastIndex(s, ",")
	switch {
	case comma < 0:
		return s
	case dot > comma: // 1,250.00
		return strings.ReplaceAll(s, ",", "")
	case dot >= 0: // 1.250,00
		return strings.ReplaceAll(s[:comma], ".", "") + "." + s[comma+1:]
	}
	if n := len(s) - comma - 1; n == 1 || n == 2 {
		return strings.ReplaceAll(s[:comma], ",", "") + "." + s[comma+1:]
	}
	return strings.ReplaceAll(s, ",", "")
}
