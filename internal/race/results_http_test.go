package race_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	resultspkg "github.com/tutti-dev/tutti/internal/race/results"
)

// upload posts file as the import form does (multipart, field "file").
func (p *person) upload(path, file string) (*http.Response, string) {
	p.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "results.csv")
	if err == nil {
		_, err = fw.Write([]byte(file))
	}
	if err == nil {
		err = mw.Close()
	}
	if err != nil {
		p.t.Fatal(err)
	}
	return p.Do(http.MethodPost, path, &body, http.Header{"Content-Type": {mw.FormDataContentType()}})
}

// finishers is a results file of n runners, bib i finishing i-th, with
// names written to be searched for.
func finishers(n int, names map[int]string) string {
	var b strings.Builder
	b.WriteString("Bib,First name,Last name,Gender,Age,Chip time\n")
	for i := 1; i <= n; i++ {
		first, last, _ := strings.Cut(names[i], " ")
		if first == "" {
			first, last = "Runner", fmt.Sprintf("Number%03d", i)
		}
		fmt.Fprintf(&b, "%d,%s,%s,F,%d,%s\n", i, first, last, 20+i%40, resultspkg.FormatFinish(int64(3*3600+60*i)*1000))
	}
	return b.String()
}

var nextLink = regexp.MustCompile(`<a href="([^"]*)" rel="next">`)

var resultRow = regexp.MustCompile(`<td>(\d+)</td><td class="name">([^<]*)</td><td>(\d+)</td>`)

// rows are a results page's (place, name, bib) rows, as "place name #bib".
func rows(page string) []string {
	var out []string
	for _, m := range resultRow.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1]+" "+m[2]+" #"+m[3])
	}
	return out
}

// notYet fails the test unless res is the page that says the results
// are not published yet, and when the race is.
func notYet(t *testing.T, res *http.Response, body, what string) {
	t.Helper()
	apptest.WantStatus(t, res, body, http.StatusOK)
	if !strings.Contains(body, "The results are not published yet.") || !strings.Contains(body, "The race is on ") {
		t.Errorf("%s: not the page saying the results are to come: %.2000s", what, body)
	}
}

// A director imports results (a bad file refused whole, naming its line
// and column), previews and publishes them; runners page through them,
// search them by name or bib and get suggestions; a new import shows on
// the next request; only the race's directors may do any of it.
func TestResultsOverHTTP(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "50")
		visitor := &person{apptest.NewWeb(t, m), t}
		_, page := visitor.Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)[1]
		admin := "/race/r/" + slug + "/admin/events/" + ev + "/results"
		results := "/race/r/" + slug + "/results/" + ev

		res, body := visitor.Get(results)
		notYet(t, res, body, "before any import")
		res, body = visitor.Get("/race/r/" + slug + "/results")
		notYet(t, res, body, "the race's, before any import")
		for _, path := range []string{"/race/r/" + slug + "/results/999999", "/race/r/no-such-race/results", "/race/r/no-such-race/results/" + ev} {
			res, body = visitor.Get(path)
			apptest.WantStatus(t, res, body, http.StatusNotFound)
		}
		// The director's routes find the event once, for every handler: an
		// event that is not the race's (or no id) is not found.
		for _, other := range []string{"999999", "0", "x"} {
			res, body = dir.Get("/race/r/" + slug + "/admin/events/" + other + "/results")
			apptest.WantStatus(t, res, body, http.StatusNotFound)
			res, body = dir.Post("/race/r/"+slug+"/admin/events/"+other+"/results/publish", nil)
			apptest.WantStatus(t, res, body, http.StatusNotFound)
		}
		res, body = dir.Get("/race/r/" + slug + "/admin")
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, `href="`+admin+`"`) {
			t.Errorf("the race's admin page has no link to the event's results: %.3000s", body)
		}

		// A bad file: 422, its line and column named, nothing written.
		res, body = dir.upload(admin, "bib,name,time\n1,Ann,1:00:00\n2,Bo,1:61:00\n")
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "Line 3, column &#34;time&#34;: &#34;1:61:00&#34; is not a finish time") {
			t.Errorf("bad file's page: %.3000s", body)
		}
		res, body = dir.Get(results)
		notYet(t, res, body, "the director's, after a bad file")

		names := map[int]string{3: "Zoë Ångström", 17: "Zoe Adams", 22: "Ann Zorn"}
		path, body := dir.to(dir.upload(admin, finishers(25, names)))
		if path != admin || !strings.Contains(body, "Imported 25 results") || !strings.Contains(body, "not published") {
			t.Fatalf("after the import: %s %.3000s", path, body)
		}

		// Unpublished: runners and other users are told there are none; the
		// director previews them.
		otto := signedIn(t, m, "otto")
		for _, p := range []*person{visitor, otto} {
			res, body = p.Get(results)
			notYet(t, res, body, "imported, not published")
			if strings.Contains(body, "Zorn") {
				t.Errorf("results not published shown: %.2000s", body)
			}
			res, body = p.Get(results + "/names?q=zo")
			apptest.WantStatus(t, res, body, http.StatusNotFound)
		}
		res, body = dir.Get(results)
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "Not published") || len(rows(body)) != 10 {
			t.Errorf("director's preview: %.3000s", body)
		}
		// Only directors import, publish or see the results' admin.
		res, body = otto.upload(admin, finishers(3, nil))
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		for _, path := range []string{admin + "/publish", admin + "/unpublish"} {
			res, body = otto.Post(path, nil)
			apptest.WantStatus(t, res, body, http.StatusForbidden)
		}
		res, body = otto.Get(admin)
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		res, body = visitor.Post(admin+"/publish", nil)
		if res.StatusCode != http.StatusSeeOther || !strings.Contains(res.Header.Get("Location"), "/account/login") {
			t.Errorf("a visitor publishing: %d %s; want sent to sign in", res.StatusCode, res.Header.Get("Location"))
		}

		path, body = dir.to(dir.Post(admin+"/publish", nil))
		if !strings.Contains(body, "Published") {
			t.Fatalf("after publishing: %s %.2000s", path, body)
		}
		// The race page links them at once (publishing raised the version).
		_, page = visitor.Get("/race/r/" + slug)
		if !strings.Contains(page, `href="`+results+`"`) {
			t.Errorf("race page without a results link: %.3000s", page)
		}

		// Pages of ten in order; the first event's at /results.
		var all []string
		for p := 1; p <= 3; p++ {
			res, body = visitor.Get(results + "?page=" + fmt.Sprint(p))
			apptest.WantStatus(t, res, body, http.StatusOK)
			all = append(all, rows(body)...)
		}
		if len(all) != 25 || all[0] != "1 Runner Number001 #1" || all[2] != "3 Zoë Ångström #3" || all[24] != "25 Runner Number025 #25" {
			t.Errorf("three pages: %q", all)
		}
		res, body = visitor.Get(results + "?page=4")
		apptest.WantStatus(t, res, body, http.StatusNotFound)
		res, body = visitor.Get("/race/r/" + slug + "/results")
		if got := rows(body); res.StatusCode != http.StatusOK || len(got) != 10 || got[0] != all[0] {
			t.Errorf("/results: %d %q", res.StatusCode, got)
		}
		if !strings.Contains(body, `?page=2"`) || !strings.Contains(body, `rel="next"`) {
			t.Errorf("no pager on the first page: %.3000s", body)
		}

		// Search: a word's start without its accents, a bib, a suggestion picked.
		for q, want := range map[string][]string{
			"zoe":                {"3 Zoë Ångström #3", "17 Zoe Adams #17"},
			"ANGST":              {"3 Zoë Ångström #3"},
			"z":                  {"3 Zoë Ångström #3", "17 Zoe Adams #17", "22 Ann Zorn #22"},
			"22":                 {"22 Ann Zorn #22"},
			"Zoe Adams #17":      {"17 Zoe Adams #17"},
			"nobody like this":   nil,
			"<script>x</script>": nil,
		} {
			res, body = visitor.Get(results + "?q=" + url.QueryEscape(q))
			apptest.WantStatus(t, res, body, http.StatusOK)
			if got := rows(body); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("search %q: %q; want %q", q, got, want)
			}
			if strings.Contains(body, "<script>x") {
				t.Errorf("search %q: the query is not escaped", q)
			}
		}

		// A search's pages: Next carries a keyset cursor (?after=), not a
		// page number; following it lists every match once, in list order.
		var found []string
		next := results + "?q=runner"
		for i := 0; next != "" && i < 5; i++ {
			res, body = visitor.Get(next)
			apptest.WantStatus(t, res, body, http.StatusOK)
			found = append(found, rows(body)...)
			next = ""
			if m := nextLink.FindStringSubmatch(body); m != nil {
				if next = html.UnescapeString(m[1]); !strings.Contains(next, "after=") || strings.Contains(next, "page=") {
					t.Errorf("a search's next page: %q; want a cursor", next)
				}
			}
		}
		var runners []string
		for _, r := range all {
			if strings.Contains(r, " Runner ") {
				runners = append(runners, r)
			}
		}
		if len(runners) <= 10 || fmt.Sprint(found) != fmt.Sprint(runners) {
			t.Errorf("search \"runner\" page by page: %q; want %q", found, runners)
		}

		// Suggestions: JSON, at most eight.
		res, body = visitor.Do(http.MethodGet, results+"/names?q=Zo", nil, http.Header{"Accept": {"application/json"}})
		apptest.WantStatus(t, res, body, http.StatusOK)
		var sug []struct {
			Name string
			Bib  int
		}
		if err := json.Unmarshal([]byte(body), &sug); err != nil || len(sug) != 3 || sug[0].Name != "Zoë Ångström" || sug[0].Bib != 3 ||
			!strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			t.Errorf("suggestions: %s %v %q", res.Header.Get("Content-Type"), err, body)
		}
		res, body = visitor.Get(results + "/names?q=" + url.QueryEscape("runner n"))
		if err := json.Unmarshal([]byte(body), &sug); err != nil || len(sug) != resultspkg.Suggestions {
			t.Errorf("suggestions for a common name: %d, %v", len(sug), err)
		}
		res, body = visitor.Get(results + "/names?q=r")
		if body != "[]\n" {
			t.Errorf("suggestions for one letter: %q; want none", body)
		}

		// A repeated page is the cache's: no statement (with PostgreSQL,
		// at most the version's read).
		visitor.Get(results + "?page=2")
		before := apptest.Queries(m)
		for range 5 {
			visitor.Get(results + "?page=2")
			visitor.Get(results + "/names?q=zo")
		}
		if n := apptest.Queries(m) - before; n > int64(len(apptest.Instances(m))) {
			t.Errorf("10 cached requests ran %d statements; want at most one per instance", n)
		}

		// A visitor with no cookie at all is answered by the hot lane,
		// ahead of net/http: the same page.
		stranger := &person{&apptest.Web{T: t, Client: &http.Client{Timeout: 30 * time.Second}, Base: m.URL()}, t}
		_, viaChain := visitor.Get(results + "?page=2&q=")
		res, body = stranger.Get(results + "?page=2")
		if res.StatusCode != http.StatusOK || body != viaChain {
			t.Errorf("a stranger's page 2: %d, the same as the chain's: %v", res.StatusCode, body == viaChain)
		}

		// A new import replaces them all, and the next request shows it.
		dir.to(dir.upload(admin, "bib,name,time\n40,Zoë Newcomer,2:59:59\n41,Bo Second,3:00:00\n"))
		for _, p := range []*person{visitor, stranger} {
			res, body = p.Get(results + "?page=2")
			apptest.WantStatus(t, res, body, http.StatusNotFound)
		}
		_, body = stranger.Get(results + "?q=" + url.QueryEscape("zoë"))
		if got := rows(body); fmt.Sprint(got) != "[1 Zoë Newcomer #40]" {
			t.Errorf("a stranger's search after a new import: %q", got)
		}
		_, body = visitor.Get(results)
		if got := rows(body); fmt.Sprint(got) != "[1 Zoë Newcomer #40 2 Bo Second #41]" {
			t.Errorf("after a new import: %q", got)
		}
		_, body = visitor.Get(results + "/names?q=zo")
		if !strings.Contains(body, "Zoë Newcomer") || strings.Contains(body, "Ångström") {
			t.Errorf("suggestions after a new import: %s", body)
		}

		// Unpublished: gone for runners at once.
		dir.to(dir.Post(admin+"/unpublish", nil))
		res, body = visitor.Get(results)
		notYet(t, res, body, "unpublished")
		_, page = visitor.Get("/race/r/" + slug)
		if strings.Contains(page, `href="`+results+`"`) {
			t.Errorf("race page still links unpublished results")
		}
	})
}
