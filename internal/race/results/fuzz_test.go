package results

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tutti-dev/tutti/internal/errs"
)

// A results file of any bytes: the import never panics, and what it
// accepts is a list the pages and the database can take.
func FuzzParse(f *testing.F) {
	f.Add([]byte("bib,name,gender,age,time\n1,Zoë Ångström,F,34,1:42:07.5\n2,Bo,M,,42:07\n"))
	f.Add([]byte("\ufeffBib;First Name;Last Name;Place;Chip Time;Club\n7;A;B;1;3:00:00;X\n8;C;D;1;DNF;\n"))
	f.Add([]byte("bib\tname\ttime\n1\t\"a \"\"b\"\"\"\t1:00\n"))
	f.Add([]byte("bib,name,time\n1,\"open,1:00:00\n"))
	f.Add([]byte("place,bib,name,time,time\n,,,,\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, skipped, err := Parse(context.Background(), bytes.NewReader(b))
		if err != nil {
			if f := errs.FieldsOf(err); f == nil || !strings.HasPrefix(f["file"], "Nothing was imported:\n") {
				t.Fatalf("refusal without a message: %v", err)
			}
			return
		}
		if len(rs) == 0 || len(rs)+skipped > MaxRows {
			t.Fatalf("accepted %d results (%d skipped)", len(rs), skipped)
		}
		bibs := map[int]bool{}
		for i, r := range rs {
			if r.Pos != i+1 || r.Place < 1 || i > 0 && r.Place < rs[i-1].Place {
				t.Fatalf("result %d: pos %d place %d", i, r.Pos, r.Place)
			}
			if r.Bib < 1 || bibs[r.Bib] {
				t.Fatalf("bib %d", r.Bib)
			}
			bibs[r.Bib] = true
			if r.Name == "" || !utf8.ValidString(r.Name) || utf8.RuneCountInString(r.Name) > maxNameLen || !utf8.ValidString(r.City) {
				t.Fatalf("name %q city %q", r.Name, r.City)
			}
			if !slices.Contains([]string{"", "F", "M", "X"}, r.Gender) || r.Age < 0 || r.Age > 120 {
				t.Fatalf("category %q %d", r.Gender, r.Age)
			}
			if ms, ok := ParseFinish(FormatFinish(r.TimeMS)); !ok || ms != r.TimeMS {
				t.Fatalf("time %d does not read back: %d", r.TimeMS, ms)
			}
		}
	})
}
