package cache

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"time"
)

// Key builds a cache key from what a fragment shows and the version of its
// last change, e.g. Key("meet", "best", pollID, version): when the thing
// changes its version does, the old key is never asked for again, and the
// stale entry ages out (key-based expiry). Parts are joined with ':'.
func Key(parts ...any) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(':')
		}
		switch v := p.(type) {
		case string:
			b.WriteString(v)
		case int:
			b.WriteString(strconv.Itoa(v))
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		case time.Time:
			b.WriteString(strconv.FormatInt(v.UnixNano(), 36))
		default:
			panic("cache: Key part of unsupported type")
		}
	}
	return b.String()
}

// Fragment returns the rendered fragment under key, rendering it with render
// on a miss (once per key across concurrent callers). Pages assemble such
// fragments, so a change re-renders only the fragments it touched.
func (c *Cache) Fragment(ctx context.Context, key string, ttl time.Duration, render func(ctx context.Context, w *bytes.Buffer) error) ([]byte, error) {
	return c.Fetch(ctx, key, func(ctx context.Context) ([]byte, time.Duration, error) {
		var buf bytes.Buffer
		if err := render(ctx, &buf); err != nil {
			return nil, 0, err
		}
		return buf.Bytes(), ttl, nil
	})
}
