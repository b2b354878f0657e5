package db

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// Cursor is a keyset pagination position: the sort key (a time, or zero) and
// the id of the last row shown. Pages are fetched with
//
//	WHERE (sort_col, id) < (?, ?) ORDER BY sort_col DESC, id DESC LIMIT n+1
//
// (or by id alone), so a page costs the same at any depth, unlike OFFSET.
type Cursor struct {
	At time.Time
	ID int64
}

// IsZero reports whether c is the start (no cursor).
func (c Cursor) IsZero() bool { return c.ID == 0 && c.At.IsZero() }

// String encodes the cursor for a URL: opaque, URL-safe.
func (c Cursor) String() string {
	if c.IsZero() {
		return ""
	}
	s := strconv.FormatInt(c.ID, 36)
	if !c.At.IsZero() {
		s = strconv.FormatInt(c.At.UnixMicro(), 36) + "." + s
	}
	return base64.RawURLEncoding.EncodeToString([]byte(s))
}

// ParseCursor decodes a cursor; a malformed one is the start, as if absent.
func ParseCursor(s string) Cursor {
	if s == "" || len(s) > 64 {
		return Cursor{}
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}
	}
	at, id, hasAt := strings.Cut(string(b), ".")
	if !hasAt {
		at, id = "", at
	}
	n, err := strconv.ParseInt(id, 36, 64)
	if err != nil || n <= 0 {
		return Cursor{}
	}
	c := Cursor{ID: n}
	if hasAt {
		us, err := strconv.ParseInt(at, 36, 64)
		if err != nil {
			return Cursor{}
		}
		c.At = time.UnixMicro(us).UTC()
	}
	return c
}

// Trim cuts a page fetched with LIMIT n+1 to n rows and returns the cursor of
// the next page (zero when there is none); key gives a row's cursor.
func Trim[T any](rows []T, n int, key func(T) Cursor) ([]T, Cursor) {
	if len(rows) <= n {
		return rows, Cursor{}
	}
	rows = rows[:n]
	return rows, key(rows[n-1])
}
