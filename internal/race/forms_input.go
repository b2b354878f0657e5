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
