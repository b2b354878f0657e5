package load

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Int is option key (--opt key=N) as a whole number of at least least, or
// def if it is not given.
func (o Options) Int(key string, def, least int) (int, error) {
	v, ok := o.Params[key]
	if !ok || v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		return 0, fmt.Errorf("option %s=%q: want a whole number >= %d", key, v, least)
	}
	return n, nil
}

// Float is option key as a number above 0, or def.
func (o Options) Float(key string, def float64) (float64, error) {
	v, ok := o.Params[key]
	if !ok || v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0) {
		return 0, fmt.Errorf("option %s=%q: want a number > 0", key, v)
	}
	return f, nil
}

// Duration is option key as a duration above 0 ("30s"), or def.
func (o Options) Duration(key string, def time.Duration) (time.Duration, error) {
	v, ok := o.Params[key]
	if !ok || v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("option %s=%q: want a duration such as 30s", key, v)
	}
	return d, nil
}

// Range is option key as min-max durations ("15s-60s"), or def written
// the same way.
func (o Options) Range(key, def string) ([2]time.Duration, error) {
	v := o.Params[key]
	if v == "" {
		v = def
	}
	lo, hi, ok := strings.Cut(v, "-")
	a, err1 := time.ParseDuration(lo)
	b, err2 := time.ParseDuration(hi)
	if !ok || err1 != nil || err2 != nil || a < 0 || b < a {
		return [2]time.Duration{}, fmt.Errorf("option %s=%q: want min-max durations such as 15s-60s", key, v)
	}
	return [2]time.Duration{a, b}, nil
}
