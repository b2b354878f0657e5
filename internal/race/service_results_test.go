package race

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/race/results"
)

// resultsCSV is a file of n finishers: bib i finishes i-th, one second
// after the one before; names from the seed's lists, and a few written to
// be searched for.
func resultsCSV(n int, extra map[int]string) string {
	var b strings.Builder
	b.WriteString("bib,name,gender,age,time\n")
	for i := 1; i <= n; i++ {
		name := extra[i]
		if name == "" {
			name = results.MadeUpName(i)
		}
		fmt.Fprintf(&b, "%d,%s,M,%d,%s\n", i, name, 20+i%50, results.FormatFinish(int64(2*3600+i)*1000))
	}
	return b.String()
}

// directing is the fixture's director as results' handlers get it.
func (f *fixture) directing() *races.Directing {
	d := f.director()
	return &races.Directing{User: d.User, Race: &d.Race.Race}
}

// director is the fixture race's owner, directing it as a request does.
func (f *fixture) director() *Directing {
	f.t.Helper()
	d, err := f.a.svc.Directed(context.Background(), &auth.User{ID: f.race.OwnerID}, f.race.Slug)
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

func (f *fixture) importResults(file string) (results.Imported, error) {
	d := f.director()
	return f.a.results.Service().Import(context.Background(), &races.Directing{User: d.User, Race: &d.Race.Race}, f.event().ID, strings.NewReader(file))
}

// An import replaces an event's results whole, a bad file changes nothing,
// runners see them once published, and search finds runners by a word's
// start (accents aside) or their bib, in list order, page by page.
func TestResultsImportPublishSearch(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 0)
		ctx := context.Background()
		slug, ev := f.race.Slug, f.event().ID
		all := results.ParseQuery("", "", "")
		if _, err := f.a.results.Service().Page(ctx, nil, slug, ev, all); !errors.Is(err, results.ErrNone) {
			t.Fatalf("results before any import: %v; want none", err)
		}
		if err := f.a.results.Service().Publish(ctx, f.directing(), ev, true); errs.KindOf(err) != errs.Conflict {
			t.Fatalf("publishing nothing: %v; want a conflict", err)
		}
		names := map[int]string{7: "Zoë Ångström", 30: "Zoe Adams", 31: "Chloé Zorn", 44: "Adam Zoellner"}
		n, err := f.importResults(resultsCSV(45, names))
		if err != nil || n.Count != 45 {
			t.Fatalf("import: %+v, %v", n, err)
		}
		// Not published: not for runners, nor for a signed-in runner; the
		// director previews them.
		if _, err := f.a.results.Service().Page(ctx, nil, slug, ev, all); !errors.Is(err, results.ErrNone) {
			t.Fatalf("unpublished results for a runner: %v; want none", err)
		}
		if _, err := f.a.results.Service().Page(ctx, f.user(), slug, ev, all); !errors.Is(err, results.ErrNone) {
			t.Fatalf("unpublished results for another user: %v; want none", err)
		}
		v, err := f.a.results.Service().Page(ctx, &auth.User{ID: f.race.OwnerID}, slug, ev, all)
		if err != nil || !v.Preview || len(v.Rows) != 10 {
			t.Fatalf("director's preview: %+v, %v", v, err)
		}
		if err := f.a.results.Service().Publish(ctx, f.directing(), ev, true); err != nil {
			t.Fatal(err)
		}
		// Pages of ten, in order, five of them.
		var seen []int
		for p := 1; p <= 5; p++ {
			v, err := f.a.results.Service().Page(ctx, nil, slug, 0, results.ParseQuery("", fmt.Sprint(p), ""))
			if err != nil || v.Pages != 5 || v.Preview {
				t.Fatalf("page %d: %+v, %v", p, v, err)
			}
			if want := min(10, 45-10*(p-1)); len(v.Rows) != want {
				t.Fatalf("page %d has %d rows; want %d", p, len(v.Rows), want)
			}
			for _, r := range v.Rows {
				seen = append(seen, r.Bib)
			}
		}
		for i, b := range seen {
			if b != i+1 {
				t.Fatalf("bibs in page order: %v; want 1 to 45", seen)
			}
		}
		if _, err := f.a.results.Service().Page(ctx, nil, slug, ev, results.ParseQuery("", "6", "")); !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("page 6 of 5: %v; want not found", err)
		}
		// Search: any word's start, accents and case aside, in place order.
		for q, want := range map[string][]int{
			"zoe": {7, 30, 44}, "ZOË": {7, 30, 44}, "zo": {7, 21, 30, 31, 44, 45}, "ang": {7}, "zoe ång": {7}, "adam zoe": {30, 44},
			"44": {44}, "#7": {7}, "Adam Zoellner #44": {44}, "999": nil, "xq": nil,
		} {
			v, err := f.a.results.Service().Page(ctx, nil, slug, ev, results.ParseQuery(q, "", ""))
			if err != nil {
				t.Fatalf("search %q: %v", q, err)
			}
			var got []int
			for _, r := range v.Rows {
				got = append(got, r.Bib)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("search %q: bibs %v; want %v", q, got, want)
			}
		}
		// A search's pages: "m" (Mark, Martin, Mateo, Mehmet, Müller, ...)
		// matches more than ten.
		var found []int
		for after := ""; ; {
			v, err := f.a.results.Service().Page(ctx, nil, slug, ev, results.ParseQuery("m", "", after))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range v.Rows {
				found = append(found, r.Bib)
			}
			if v.Next.IsZero() {
				break
			}
			after = v.Next.String()
		}
		var want []int
		for i := 1; i <= 45; i++ {
			if k := " " + results.Key(results.MadeUpName(i)); names[i] == "" && strings.Contains(k, " m") {
				want = append(want, i)
			}
		}
		if len(want) <= 10 || fmt.Sprint(found) != fmt.Sprint(want) {
			t.Errorf("search \"m\" page by page: %v; want %v", found, want)
		}
		// Suggestions: at most eight, best placed first.
		sug, err := f.a.results.Service().Suggest(ctx, nil, slug, ev, results.ParseQuery("zo", "", ""))
		if err != nil || len(sug) != 6 || sug[0] != (results.Suggestion{Name: "Zoë Ångström", Bib: 7}) {
			t.Errorf("suggestions for zo: %+v, %v", sug, err)
		}
		if sug, err := f.a.results.Service().Suggest(ctx, nil, slug, ev, results.ParseQuery("m", "", "")); err != nil || len(sug) != 0 {
			t.Errorf("suggestions for one letter: %+v, %v; want none", sug, err)
		}
		every, err := f.a.results.Store().Search(ctx, ev, 45, []string{"m"}, db.Cursor{}, 100)
		if err != nil || len(every) != len(want) {
			t.Fatalf("every m: %d, %v; want %d", len(every), err, len(want))
		}
		sug, err = f.a.results.Service().Suggest(ctx, nil, slug, ev, results.ParseQuery("m m", "", "")) // two letters, every word's start an m
		if err != nil || len(sug) != results.Suggestions || sug[0].Bib != every[0].Bib || sug[7].Bib != every[7].Bib {
			t.Errorf("suggestions for \"m m\": %+v, %v; want the first %d of %v", sug, err, results.Suggestions, want)
		}

		// A bad file changes nothing; a good one replaces all.
		if _, err := f.importResults("bib,name,time\n1,New,1:00:00\n2,Bad,later\n"); errs.FieldsOf(err)["file"] == "" {
			t.Fatalf("bad file: %v", err)
		}
		if e, _ := f.a.store.Event(ctx, ev); e.ResultsCount != 45 {
			t.Errorf("after a bad file: %d results; want 45", e.ResultsCount)
		}
		if _, err := f.importResults("bib,name,time\n5,Zoë New,3:00:00\n6,Ann Other,2:59:00\n"); err != nil {
			t.Fatal(err)
		}
		v, err = f.a.results.Service().Page(ctx, nil, slug, ev, all)
		if err != nil || len(v.Rows) != 2 || v.Rows[0].Bib != 6 || v.Rows[0].Place != 1 || v.Pages != 1 {
			t.Fatalf("after a new import: %+v, %v", v, err)
		}
		if v, _ := f.a.results.Service().Page(ctx, nil, slug, ev, results.ParseQuery("zoe", "", "")); len(v.Rows) != 1 || v.Rows[0].Bib != 5 {
			t.Errorf("search after a new import: %+v", v.Rows)
		}
		// Unpublished again: gone for runners.
		if err := f.a.results.Service().Publish(ctx, f.directing(), ev, false); err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.results.Service().Page(ctx, nil, slug, ev, all); !errors.Is(err, results.ErrNone) {
			t.Errorf("unpublished: %v; want none", err)
		}
	}, sets()...)
}

// results.Seed makes n results in order, published; search finds them on
// both databases whichever way PostgreSQL's search takes (a name in the
// first scanFirst results, or only later).
func TestSeedResults(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 0)
		ctx := context.Background()
		const n = 3000
		if err := results.Seed(ctx, d, f.race.ID, f.event().ID, n, rand.New(rand.NewPCG(1, 2))); err != nil {
			t.Fatal(err)
		}
		if err := results.Seed(ctx, d, f.race.ID+1, f.event().ID, n, rand.New(rand.NewPCG(1, 2))); err == nil {
			t.Error("seeding another race's event: no error")
		}
		f.a.versions.Forget(versionScope, f.race.Slug)
		v, err := f.a.results.Service().Page(ctx, nil, f.race.Slug, 0, results.ParseQuery("", "300", ""))
		if err != nil || v.Pages != n/10 || len(v.Rows) != 10 || v.Rows[9].Pos != n {
			t.Fatalf("last page: %+v, %v", v, err)
		}
		// A rare name (only after the first scanFirst): one made so.
		var late results.Result
		if err := db.Scan(d.QueryRow(ctx, `SELECT bib, name FROM race_results WHERE event_id = ? AND pos = ?`, f.event().ID, n-1),
			&late.Bib, &late.Name); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Exec(ctx, `UPDATE race_results SET name = 'Quentin Xylander', name_key = 'quentin xylander' WHERE event_id = ? AND pos = ?`,
			f.event().ID, n-1); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"xyl", "quen xy"} {
			sug, err := f.a.results.Service().Suggest(ctx, nil, f.race.Slug, f.event().ID, results.ParseQuery(q, "", ""))
			if err != nil || len(sug) != 1 || sug[0].Bib != late.Bib {
				t.Errorf("suggestions for %q: %+v, %v; want bib %d", q, sug, err, late.Bib)
			}
		}
		// A common one: the first eight in order.
		sug, err := f.a.results.Service().Suggest(ctx, nil, f.race.Slug, f.event().ID, results.ParseQuery("ma", "", ""))
		if err != nil || len(sug) != results.Suggestions {
			t.Fatalf("suggestions for ma: %+v, %v", sug, err)
		}
		rows, err := f.a.results.Store().Search(ctx, f.event().ID, n, []string{"ma"}, db.Cursor{}, n)
		if err != nil || len(rows) < 100 {
			t.Fatalf("every ma: %d, %v", len(rows), err)
		}
		for i, s := range sug {
			if rows[i].Bib != s.Bib {
				t.Errorf("suggestion %d is bib %d; want %d (list order)", i, s.Bib, rows[i].Bib)
			}
		}
		for i := 1; i < len(rows); i++ {
			if rows[i].Pos <= rows[i-1].Pos {
				t.Fatalf("search results out of order at %d: %d after %d", i, rows[i].Pos, rows[i-1].Pos)
			}
		}
	}, sets()...)
}
