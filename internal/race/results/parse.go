package results

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/search"
	"github.com/tutti-dev/tutti/internal/text"
)

// Result is one finisher of an event.
type Result struct {
	Pos    int // 1..n: the list's order (place, time, then the file's order)
	Place  int
	Bib    int
	Name   string
	Gender string // F, M, X or ""
	Age    int    // 0: not given
	City   string
	TimeMS int64 // finish time in milliseconds
}

// Limits of a results file: what one import may cost.
const (
	maxNameLen       = 100 // characters of a runner's name, as race's forms take it
	MaxBytes         = 5 << 20
	MaxRows          = 100_000
	maxResultField   = 200 // characters in a cell
	maxResultColumns = 60
	maxProblems      = 10 // a refused file lists at most this many
	maxFinishMS      = 100 * 3600 * 1000
)

// resultColumns are the header names a column is recognised by (compared
// in lower case, "_" and "-" read as spaces), in order of preference.
var resultColumns = map[string][]string{
	"bib":    {"bib", "bib number", "bib no", "bib #", "number"},
	"name":   {"name", "full name", "runner", "athlete"},
	"first":  {"first name", "firstname", "first", "given name"},
	"last":   {"last name", "lastname", "last", "surname", "family name"},
	"gender": {"gender", "sex"},
	"age":    {"age"},
	"time":   {"time", "chip time", "net time", "finish time", "gun time", "finish"},
	"place":  {"place", "overall place", "overall", "rank", "position", "pos"},
	"city":   {"city", "club", "hometown", "team"},
}

var resultNameField = text.Field{Name: "The name", Min: 1, Max: maxNameLen, Empty: "The name is empty."}
var resultCityField = text.Field{Name: "The city", Max: 100}

// Parse reads a results file: a header line naming the columns
// (bib, name or first name and last name, time; gender, age, place and city
// optional; others ignored), then a finisher a line, separated by commas,
// semicolons or tabs. Rows whose time is DNF, DNS, DQ or DSQ are left out
// and counted in skipped. Without a place column, places follow the times
// (equal times share a place). A file with any bad line is refused whole:
// an Invalid error whose field "file" lists the problems by line and
// column. The work is bounded: MaxRows rows, maxResultField
// characters a cell (the caller bounds the bytes), and ctx is checked as
// it goes.
func Parse(ctx context.Context, r io.Reader) (rs []Result, skipped int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.Comma = sniffComma(br)
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	var p problems
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, 0, p.fail("The file is empty. Its first line names the columns: bib, name, time, and optionally gender, age, place, city.")
		}
		p.csv(err)
		return nil, 0, p.err()
	}
	col, names := mapColumns(head, &p)
	if p.any() {
		return nil, 0, p.err()
	}
	place := col["place"] >= 0
	bibLine := map[int]int{}
	for !p.full() {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				p.add("Line %d: %d fields; the header has %d.", pe.StartLine, len(rec), len(names))
				continue
			}
			p.csv(err) // the reader cannot be trusted past a quoting error
			break
		}
		line, _ := cr.FieldPos(0)
		res, ok := parseRow(rec, col, names, line, &p)
		switch {
		case !ok: // told in p
		case res.TimeMS < 0:
			skipped++
		case bibLine[res.Bib] > 0:
			p.add("Line %d, column %q: bib %d is on line %d too.", line, names[col["bib"]], res.Bib, bibLine[res.Bib])
		default:
			bibLine[res.Bib] = line
			rs = append(rs, res)
		}
		if n := len(rs) + skipped; n > MaxRows {
			p.add("The file has more than %d results: import at most %d at a time.", MaxRows, MaxRows)
			break
		} else if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
	}
	if p.any() {
		return nil, 0, p.err()
	}
	if len(rs) == 0 {
		return nil, 0, p.fail("The file has no finishers below its header.")
	}
	if place {
		slices.SortStableFunc(rs, func(a, b Result) int {
			if a.Place != b.Place {
				return a.Place - b.Place
			}
			return cmp.Compare(a.TimeMS, b.TimeMS)
		})
		for i := range rs {
			rs[i].Pos = i + 1
		}
	} else {
		slices.SortStableFunc(rs, func(a, b Result) int { return cmp.Compare(a.TimeMS, b.TimeMS) })
		rank(rs)
	}
	return rs, skipped, nil
}

// rank numbers rs, sorted by time, in order (Pos) and by time (Place:
// equal times share one, the next place skips as many).
func rank(rs []Result) {
	for i := range rs {
		rs[i].Pos = i + 1
		rs[i].Place = i + 1
		if i > 0 && rs[i].TimeMS == rs[i-1].TimeMS {
			rs[i].Place = rs[i-1].Place
		}
	}
}

// sniffComma is the separator of the file's first line: the most frequent
// of comma, semicolon (spreadsheets in many languages) and tab.
func sniffComma(br *bufio.Reader) rune {
	b, _ := br.Peek(br.Size())
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	comma, most := ',', bytes.Count(b, []byte{','})
	for _, c := range []rune{';', '\t'} {
		if n := bytes.Count(b, []byte{byte(c)}); n > most {
			comma, most = c, n
		}
	}
	return comma
}

// mapColumns finds each known column's index in the header (-1: absent);
// names are the header's cells as written, for messages.
func mapColumns(head []string, p *problems) (map[string]int, []string) {
	names := slices.Clone(head)
	col := map[string]int{}
	for k := range resultColumns {
		col[k] = -1
	}
	if len(head) > maxResultColumns {
		p.add("Line 1: %d columns; a results file has at most %d.", len(head), maxResultColumns)
		return col, names
	}
	pref := map[string]int{} // the preference of the header taken for each column
	for i, h := range head {
		h = strings.Join(strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(strings.ToLower(h))), " ")
		for k, aliases := range resultColumns {
			if j := slices.Index(aliases, h); j >= 0 {
				if col[k] >= 0 && pref[k] == j {
					p.add("Line 1: the column %q is there twice.", names[i])
				}
				if col[k] < 0 || j < pref[k] {
					col[k], pref[k] = i, j
				}
			}
		}
	}
	var missing []string
	if col["bib"] < 0 {
		missing = append(missing, `"bib"`)
	}
	if col["name"] < 0 && (col["first"] < 0 || col["last"] < 0) {
		missing = append(missing, `"name" (or "first name" and "last name")`)
	}
	if col["time"] < 0 {
		missing = append(missing, `"time"`)
	}
	if len(missing) > 0 {
		p.add("Line 1: the header has no %s column. The first line names the columns: bib, name (or first name and last name), time; "+
			"gender, age, place and city are optional.", strings.Join(missing, " or "))
	}
	return col, names
}

// parseRow reads one finisher; TimeMS -1 marks a runner who did not finish.
func parseRow(rec []string, col map[string]int, names []string, line int, p *problems) (Result, bool) {
	good := true
	bad := func(k, format string, args ...any) {
		p.add("Line %d, column %q: %s", line, names[col[k]], fmt.Sprintf(format, args...))
		good = false
	}
	for i, f := range rec {
		if n := utf8.RuneCountInString(f); n > maxResultField {
			p.add("Line %d, column %q: %d characters; a cell has at most %d.", line, names[i], n, maxResultField)
			good = false
		}
	}
	if !good {
		return Result{}, false
	}
	cell := func(k string) string {
		if i := col[k]; i >= 0 {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var r Result
	switch t := strings.ToUpper(cell("time")); t {
	case "DNF", "DNS", "DQ", "DSQ":
		r.TimeMS = -1
		return r, true
	default:
		ms, ok := ParseFinish(t)
		switch {
		case t == "":
			bad("time", "no finish time: write h:mm:ss or mm:ss, such as 1:42:07 or 42:07.5, or DNF.")
		case !ok:
			bad("time", "%q is not a finish time: write h:mm:ss or mm:ss, such as 1:42:07 or 42:07.5.", cell("time"))
		}
		r.TimeMS = ms
	}
	b, ok := bibNumber(cell("bib"))
	switch {
	case cell("bib") == "":
		bad("bib", "no bib number.")
	case !ok || b > 99_999_999:
		bad("bib", "%q is not a bib number.", cell("bib"))
	}
	r.Bib = b
	name := cell("name")
	if col["name"] < 0 || name == "" && col["first"] >= 0 {
		name = strings.TrimSpace(cell("first") + " " + cell("last"))
	}
	var msg string
	if r.Name, msg = resultNameField.Clean(name); msg != "" {
		k := "name"
		if col[k] < 0 {
			k = "first"
		}
		bad(k, "%s", msg)
	}
	if g, ok := parseGender(cell("gender")); ok {
		r.Gender = g
	} else {
		bad("gender", "%q is not a gender this import knows: write F, M or X, or leave it empty.", cell("gender"))
	}
	if a := cell("age"); a != "" {
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 || n > 120 {
			bad("age", "%q is not an age: write a whole number of years, or leave it empty.", a)
		}
		r.Age = n
	}
	if col["place"] >= 0 {
		n, err := strconv.Atoi(strings.TrimSuffix(cell("place"), "."))
		if err != nil || n < 1 || n > 10*MaxRows {
			bad("place", "%q is not a place: write a whole number from 1.", cell("place"))
		}
		r.Place = n
	}
	if r.City, msg = resultCityField.Clean(cell("city")); msg != "" {
		bad("city", "%s", msg)
	}
	return r, good
}

// parseGender reads the usual ways of writing a category's gender.
func parseGender(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "":
		return "", true
	case "f", "female", "w", "woman", "women":
		return "F", true
	case "m", "male", "man", "men":
		return "M", true
	case "x", "nb", "non-binary", "nonbinary", "non binary":
		return "X", true
	}
	return "", false
}

// ParseFinish reads a finish time, h:mm:ss or mm:ss (minutes may pass 59),
// with an optional fraction after a point or a comma, as milliseconds.
func ParseFinish(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	main, frac, _ := strings.Cut(strings.Replace(s, ",", ".", 1), ".")
	parts := strings.Split(main, ":")
	if len(parts) < 2 || len(parts) > 3 || len(frac) > 9 {
		return 0, false
	}
	var v [3]int64
	for i, part := range parts {
		if part == "" || len(part) > 3 || i > 0 && len(part) != 2 {
			return 0, false
		}
		n, err := strconv.ParseInt(part, 10, 64)
		if err != nil || n < 0 || part[0] == '+' || part[0] == '-' {
			return 0, false
		}
		v[i] = n
	}
	var h, m, sec int64
	if len(parts) == 3 {
		h, m, sec = v[0], v[1], v[2]
		if m > 59 {
			return 0, false
		}
	} else {
		m, sec = v[0], v[1]
	}
	if sec > 59 {
		return 0, false
	}
	var fms int64
	if frac != "" {
		for _, c := range frac {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		f := (frac + "00")[:3]
		fms, _ = strconv.ParseInt(f, 10, 64)
	}
	ms := ((h*60+m)*60+sec)*1000 + fms
	return ms, ms > 0 && ms < maxFinishMS
}

// FormatFinish writes a finish time as results lists do: h:mm:ss, or m:ss
// under an hour, with as many decimals as it has (up to three).
func FormatFinish(ms int64) string { return formatFinish(ms, finishDecimals(ms)) }

// finishDecimals is how many decimals of a second ms needs (0 to 3).
func finishDecimals(ms int64) int {
	switch f := ms % 1000; {
	case f == 0:
		return 0
	case f%100 == 0:
		return 1
	case f%10 == 0:
		return 2
	}
	return 3
}

// formatFinish is FormatFinish with d decimals (0 to 3), enough for ms.
func formatFinish(ms int64, d int) string {
	s := ms / 1000
	var out string
	if s >= 3600 {
		out = fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	} else {
		out = fmt.Sprintf("%d:%02d", s/60, s%60)
	}
	if d == 0 {
		return out
	}
	frac := fmt.Sprintf("%03d", ms%1000)
	return out + "." + frac[:d]
}

// FinishTimes formats the times of a list of finishers alike, each with
// the decimals the most precise of them needs: a list reads 2:00:22.100
// beside 2:00:10.732, not 2:00:22.1.
func FinishTimes(rows []Result) []string {
	d := 0
	for _, r := range rows {
		d = max(d, finishDecimals(r.TimeMS))
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = formatFinish(r.TimeMS, d)
	}
	return out
}

// problems collects what is wrong with a file.
type problems struct{ list []string }

func (p *problems) add(format string, args ...any) {
	if len(p.list) < maxProblems {
		p.list = append(p.list, fmt.Sprintf(format, args...))
	}
}
func (p *problems) any() bool  { return len(p.list) > 0 }
func (p *problems) full() bool { return len(p.list) >= maxProblems }

// csv adds a reader's error, said plainly.
func (p *problems) csv(err error) {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		p.add("The file could not be read.")
		return
	}
	what := "it could not be read"
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		what = `a quote (") inside a cell that does not start with one; put the whole cell in quotes and double the quote ("")`
	case errors.Is(pe.Err, csv.ErrQuote):
		what = `a quoted cell is not closed, or has text after its closing quote`
	}
	if pe.StartLine != pe.Line {
		p.add("Line %d (read on to line %d, character %d): %s.", pe.StartLine, pe.Line, pe.Column, what)
		return
	}
	p.add("Line %d, character %d: %s.", pe.Line, pe.Column, what)
}

func (p *problems) fail(msg string) error { p.add("%s", msg); return p.err() }

// err is the refusal: Invalid, the problems under the field "file".
func (p *problems) err() error {
	msg := "Nothing was imported:\n" + strings.Join(p.list, "\n")
	if len(p.list) == maxProblems {
		msg += "\n(The first " + strconv.Itoa(maxProblems) + " problems; there may be more.)"
	}
	return &errs.Error{Kind: errs.Invalid, Message: "The file has problems; they are listed below.", Fields: map[string]string{"file": msg}}
}

// Query is a results page's query: a page of the whole list, a bib, or
// the starts of a name's words.
type Query struct {
	Q     string   // as typed, trimmed, at most 100 characters
	Bib   int      // an all-digits query (or one ending "#123": a picked suggestion): that bib
	Words []string // a name's words' starts, folded (at most 4, of at most 30 characters)
	Page  int      // the whole list's page, from 1
	// After is where a search's page starts (keyset: the list position of
	// the last runner of the page before; zero: the first page).
	After db.Cursor
}

// ParseQuery reads ?q=, ?page= (the whole list's) and ?after= (a
// search's: a db.Cursor); anything unreadable is the first page.
func ParseQuery(q, page, after string) Query {
	q = text.Query(q)
	rq := Query{Q: q, Page: 1}
	if n, err := strconv.Atoi(page); err == nil && n > 1 {
		rq.Page = min(n, MaxRows)
	}
	if q == "" {
		return rq
	}
	tail := q
	if i := strings.LastIndexByte(q, '#'); i >= 0 {
		tail = q[i+1:]
	}
	if n, err := strconv.Atoi(strings.TrimSpace(tail)); err == nil && n > 0 && strings.Trim(tail, " 0123456789") == "" {
		rq.Bib, rq.Page = n, 1 // one runner: one page
		return rq
	}
	for _, w := range search.Words(q, 4) {
		if utf8.RuneCountInString(w) > 30 {
			w = string([]rune(w)[:30])
		}
		rq.Words = append(rq.Words, w)
	}
	if len(rq.Words) == 0 { // no letters or digits: not a search, and not shown as one
		rq.Q = ""
		return rq
	}
	rq.Page = 1 // a search's pages go by After
	if c := db.ParseCursor(after); c.At.IsZero() && c.ID <= MaxRows {
		rq.After = c
	}
	return rq
}

// Search reports whether q picks runners rather than a page of everyone.
func (q Query) Search() bool { return q.Bib > 0 || len(q.Words) > 0 }

// Letters counts the letters and digits of the name searched for.
func (q Query) Letters() int {
	n := 0
	for _, w := range q.Words {
		n += utf8.RuneCountInString(w)
	}
	return n
}

// key names the query in a cache key by what the page shows of it: the
// search as typed (hashed: a key stays short) and the page.
func (q Query) key() string {
	if !q.Search() {
		return "p" + strconv.Itoa(q.Page)
	}
	h := sha256.Sum256([]byte(q.Q))
	return "q" + hex.EncodeToString(h[:12]) + "/" + strconv.FormatInt(q.After.ID, 10)
}

// Key is a name as search stores and compares it (race_results.name_key):
// search.Fold's ("Zoë O'Brien" is "zoe obrien").
func Key(s string) string { return search.Fold(s) }

// bibNumber reads a bib number, "#" before it allowed.
func bibNumber(q string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(q), "#")))
	return n, err == nil && n > 0
}
