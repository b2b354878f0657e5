package results

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

func TestParseFinish(t *testing.T) {
	for in, want := range map[string]int64{
		"1:42:07": 6127000, "01:42:07": 6127000, "42:07": 2527000, "42:07.5": 2527500, "2:03:04,25": 7384250,
		"75:12": 4512000, "0:00:01.001": 1001, " 3:59:59 ": 14399000, "99:59:59": 359999000, "4:07.123456": 247123,
	} {
		if got, ok := ParseFinish(in); !ok || got != want {
			t.Errorf("ParseFinish(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "abc", "42", "0:00", "1:60:00", "1:00:60", "1:2:03", "1::00", "-1:00", "+1:00", "1:00:00:00",
		"100:00:00", "1:00.x", "1:00.1234567890", "1e3:00", "1:00:00.", " : "} {
		if got, ok := ParseFinish(in); ok && !strings.HasSuffix(in, ".") {
			t.Errorf("ParseFinish(%q) = %d; want refused", in, got)
		}
	}
}

func TestFormatFinish(t *testing.T) {
	for ms, want := range map[int64]string{6127000: "1:42:07", 2527500: "42:07.5", 7384250: "2:03:04.25", 59001: "0:59.001", 36000000: "10:00:00"} {
		if got := FormatFinish(ms); got != want {
			t.Errorf("FormatFinish(%d) = %q; want %q", ms, got, want)
		}
		if back, ok := ParseFinish(want); !ok || back != ms {
			t.Errorf("ParseFinish(%q) = %d; want %d", want, back, ms)
		}
	}
}

// TestFinishTimes: a list's times share the decimals of its most precise
// one, and each still reads back as itself.
func TestFinishTimes(t *testing.T) {
	for _, c := range []struct {
		ms   []int64
		want []string
	}{
		{[]int64{7210732, 7222100, 7230000}, []string{"2:00:10.732", "2:00:22.100", "2:00:30.000"}},
		{[]int64{2527500, 2530000}, []string{"42:07.5", "42:10.0"}},
		{[]int64{6127000, 6130000}, []string{"1:42:07", "1:42:10"}},
		{nil, []string{}},
	} {
		rows := make([]Result, len(c.ms))
		for i, ms := range c.ms {
			rows[i].TimeMS = ms
		}
		got := FinishTimes(rows)
		if !slices.Equal(got, c.want) {
			t.Errorf("FinishTimes(%v) = %q; want %q", c.ms, got, c.want)
		}
		for i, s := range got {
			if back, ok := ParseFinish(s); !ok || back != c.ms[i] {
				t.Errorf("ParseFinish(%q) = %d; want %d", s, back, c.ms[i])
			}
		}
	}
}

func TestParseResults(t *testing.T) {
	ctx := context.Background()
	// A spreadsheet's export: a byte-order mark, semicolons, first and last
	// names, no place column, a tie, a DNF.
	file := "\ufeffBib;First Name;Last_Name;Sex;Age;Chip Time;Club\n" +
		"7;Zoë;O'Brien;female;34;1:42:07.5;Kraków\n" +
		"3;José;Núñez;M;;1:39:00;\n" +
		"12;Ann;Lee;W;61;1:42:07.5;\n" +
		"9;Bo;Ek;M;40;DNF;\n" +
		"\"15\";\"Sam \"\"Fast\"\"\";Smith;X;22;2:01:00;\n"
	rs, skipped, err := Parse(ctx, strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{Pos: 1, Place: 1, Bib: 3, Name: "José Núñez", Gender: "M", TimeMS: 5940000},
		{Pos: 2, Place: 2, Bib: 7, Name: "Zoë O'Brien", Gender: "F", Age: 34, City: "Kraków", TimeMS: 6127500},
		{Pos: 3, Place: 2, Bib: 12, Name: "Ann Lee", Gender: "F", Age: 61, TimeMS: 6127500},
		{Pos: 4, Place: 4, Bib: 15, Name: `Sam "Fast" Smith`, Gender: "X", Age: 22, TimeMS: 7260000},
	}
	if !slices.Equal(rs, want) || skipped != 1 {
		t.Errorf("got %+v, %d skipped;\nwant %+v, 1", rs, skipped, want)
	}
	// A place column orders the list, times only break ties.
	rs, _, err = Parse(ctx, strings.NewReader("place,bib,name,time\n2,5,B,1:00:00\n1,6,A,1:00:01\n"))
	if err != nil || len(rs) != 2 || rs[0].Bib != 6 || rs[0].Place != 1 || rs[1].Pos != 2 {
		t.Errorf("with places: %+v, %v", rs, err)
	}
}

func TestParseResultsRefused(t *testing.T) {
	ctx := context.Background()
	many := new(strings.Builder)
	many.WriteString("bib,name,time\n")
	for i := 1; i <= MaxRows+1; i++ {
		fmt.Fprintf(many, "%d,Runner %d,3:00:00\n", i, i)
	}
	for _, tc := range []struct{ name, file, want string }{
		{"empty", "", "The file is empty"},
		{"no time column", "bib,name\n1,A\n", `no "time" column`},
		{"no name column", "bib,first name,time\n1,A,1:00:00\n", `no "name" (or "first name" and "last name") column`},
		{"twice", "bib,name,time,time\n1,A,1:00:00,1:00:00\n", `the column "time" is there twice`},
		{"bad time", "bib,name,time\n1,A,1:00:00\n2,B,1:75:00\n", `Line 3, column "time": "1:75:00" is not a finish time`},
		{"bad bib", "Bib,Name,Time\n1,A,1:00:00\nx,B,1:00:00\n", `Line 3, column "Bib": "x" is not a bib number`},
		{"bib twice", "bib,name,time\n4,A,1:00:00\n4,B,1:01:00\n", `Line 3, column "bib": bib 4 is on line 2 too`},
		{"empty name", "bib,name,time\n1,,1:00:00\n", `Line 2, column "name": The name is empty`},
		{"bad gender", "bib,name,gender,time\n1,A,Q,1:00:00\n", `Line 2, column "gender": "Q" is not a gender`},
		{"bad age", "bib,name,age,time\n1,A,200,1:00:00\n", `Line 2, column "age": "200" is not an age`},
		{"bad place", "bib,name,place,time\n1,A,first,1:00:00\n", `Line 2, column "place": "first" is not a place`},
		{"fields", "bib,name,time\n1,A,1:00:00\n2,B\n", "Line 3: 2 fields; the header has 3"},
		{"bare quote", "bib,name,time\n1,A \"x\",1:00:00\n", `Line 2, character 5: a quote (") inside a cell`},
		{"open quote", "bib,name,time\n1,\"A,1:00:00\n2,B,1:00:00\n", "Line 2 (read on to line 3, character 13): a quoted cell is not closed"},
		{"long cell", "bib,name,time\n1," + strings.Repeat("a", 201) + ",1:00:00\n", `Line 2, column "name": 201 characters`},
		{"control", "bib,name,time\n1,A\x00,1:00:00\n", `Line 2, column "name": The name contains a control character`},
		{"header only", "bib,name,time\n", "no finishers"},
		{"too many", many.String(), "more than 100000 results"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, _, err := Parse(ctx, strings.NewReader(tc.file))
			f := errs.FieldsOf(err)
			if rs != nil || f == nil || !strings.Contains(f["file"], tc.want) || !strings.HasPrefix(f["file"], "Nothing was imported:\n") {
				t.Errorf("got %d rows, %v %q; want a message with %q", len(rs), err, f["file"], tc.want)
			}
		})
	}
	// At most maxProblems problems, said so.
	bad := "bib,name,time\n" + strings.Repeat("1,A,soon\n", 50)
	_, _, err := Parse(ctx, strings.NewReader(bad))
	if msg := errs.FieldsOf(err)["file"]; strings.Count(msg, "\n") != maxProblems+1 || !strings.Contains(msg, "there may be more") {
		t.Errorf("50 bad lines: %q", msg)
	}
	// A cancelled request stops the work.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := Parse(cctx, strings.NewReader(many.String())); err != context.Canceled {
		t.Errorf("cancelled: %v; want context.Canceled", err)
	}
}

func TestParseQuery(t *testing.T) {
	c11 := db.Cursor{ID: 11}.String()
	for _, tc := range []struct {
		q, page, after string
		want           Query
		key            string // "p<page>" for the page of everyone; "q" for a search
	}{
		{"", "", "", Query{Page: 1}, "p1"},
		{"", "3", "", Query{Page: 3}, "p3"},
		{"", "-2", "", Query{Page: 1}, "p1"},
		{"", "", c11, Query{Page: 1}, "p1"},                          // a cursor is a search's
		{" 123 ", "4", c11, Query{Q: "123", Bib: 123, Page: 1}, "q"}, // one runner: one page
		{"Zoë O'Brien #7", "", "", Query{Q: "Zoë O'Brien #7", Bib: 7, Page: 1}, "q"},
		{"ZOË  o'bri", "2", c11, Query{Q: "ZOË  o'bri", Words: []string{"zoe", "obri"}, Page: 1, After: db.Cursor{ID: 11}}, "q"},
		{"zoe", "", "not a cursor", Query{Q: "zoe", Words: []string{"zoe"}, Page: 1}, "q"},
		{"a b c d e", "", "", Query{Q: "a b c d e", Words: []string{"a", "b", "c", "d"}, Page: 1}, "q"},
		{"#", "", "", Query{Page: 1}, "p1"},
		{"!!!", "2", "", Query{Page: 2}, "p2"}, // no letters: not a search, not shown as one
		{"0", "", "", Query{Q: "0", Words: []string{"0"}, Page: 1}, "q"},
	} {
		got := ParseQuery(tc.q, tc.page, tc.after)
		k := got.key()
		keyOK := k == tc.key || tc.key == "q" && strings.HasPrefix(k, "q") && strings.HasSuffix(k, "/"+strconv.FormatInt(got.After.ID, 10))
		if got.Q != tc.want.Q || got.Bib != tc.want.Bib || !slices.Equal(got.Words, tc.want.Words) || got.Page != tc.want.Page || got.After != tc.want.After || !keyOK {
			t.Errorf("ParseQuery(%q, %q, %q) = %+v key %q; want %+v key %q", tc.q, tc.page, tc.after, got, k, tc.want, tc.key)
		}
	}
	if q := ParseQuery(strings.Repeat("é", 300), "", ""); len(q.key()) > 100 {
		t.Errorf("key of a long query: %d bytes", len(q.key()))
	}
	// The page shows the search as typed: queries that find the same rows
	// but read differently are cached apart; pages of one search too.
	keys := map[string]string{}
	for _, q := range [][2]string{{"Zoë", ""}, {"ZOE", ""}, {"zoe", c11}, {"12", ""}, {"#12", ""}} {
		k := ParseQuery(q[0], "", q[1]).key()
		if other, ok := keys[k]; ok {
			t.Errorf("%q and %q share the cache key %q", q, other, k)
		}
		keys[k] = q[0] + " after " + q[1]
	}
}

func TestResultKey(t *testing.T) {
	for in, want := range map[string]string{"Zoë O'Brien-Smith": "zoe obrien smith", "  JOSÉ  Núñez ": "jose nunez", "Søren Weiß": "soren weiss"} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestPageLinks(t *testing.T) {
	for _, tc := range []struct {
		p, n int
		want []int
	}{
		{1, 1, []int{1}},
		{1, 3, []int{1, 2, 3}},
		{1, 50, []int{1, 2, 3, 0, 50}},
		{6, 50, []int{1, 0, 4, 5, 6, 7, 8, 0, 50}},
		{4, 50, []int{1, 2, 3, 4, 5, 6, 0, 50}},
		{50, 50, []int{1, 0, 48, 49, 50}},
	} {
		if got := pageLinks(tc.p, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("pageLinks(%d, %d) = %v; want %v", tc.p, tc.n, got, tc.want)
		}
	}
}
