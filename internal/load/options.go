package load

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// value is option key's text ("" if not given), noted as read.
func (o Options) value(key string) string {
	if o.read != nil {
		o.read[key] = true
	}
	return o.Params[key]
}

// Unread is the options given that the scenario did not ask for, sorted:
// misspelt, or another scenario's. Call it after the factory.
func (o Options) Unread() []string {
	var out []string
	for k := range o.Params {
		if !o.read[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Noting is o noting which options are read (see Unread).
func (o Options) Noting() Options {
	o.read = map[string]bool{}
	return o
}

// String is option key's text, or def if it is not given.
func (o Options) String(key, def string) string {
	if v := o.value(key); v != "" {
		return v
	}
	return def
}

// Bool is option key as true or false (1, 0, yes, no...), or def.
func (o Options) Bool(key string, def bool) (bool, error) {
	v := o.value(key)
	switch strings.ToLower(v) {
	case "":
		return def, nil
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("option %s=%q: want true or false (1 or 0)", key, v)
}

// Int is option key (--opt key=N) as a whole number of at least least, or
// def if it is not given.
func (o Options) Int(key string, def, least int) (int, error) {
	v := o.value(key)
	if v == "" {
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
	v := o.value(key)
	if v == "" {
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
	v := o.value(key)
	if v == "" {
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
	v := o.String(key, def)
	lo, hi, ok := strings.Cut(v, "-")
	a, err1 := time.ParseDuration(lo)
	b, err2 := time.ParseDuration(hi)
	if !ok || err1 != nil || err2 != nil || a < 0 || b < a {
		return [2]time.Duration{}, fmt.Errorf("option %s=%q: want min-max durations such as 15s-60s", key, v)
	}
	return [2]time.Duration{a, b}, nil
}
