package results

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/race/races"
)

// Scenario is the seed's results experiment (3,000 results pages
// and 5,000 suggestions a second): people looking at a page of an event's
// results, searching a name, and typing in the search box, at 500, 1,000
// and 2,000 new sessions a second, 30 s each. Options race (the slug) and
// event (the id) name an event with published results, such as the one
// `tutti seed race` makes (Seed's names are the ones searched for);
// without them, seeded gives that event from the seed's file.
func Scenario(opts load.Options, seeded func(seedFile string) (slug string, event int64, err error)) (*load.Scenario, error) {
	sc := &load.Scenario{Name: "race-results",
		Description: "results pages (x3), name searches (x1) and search-box suggestions (x5) at 500 to 2,000 sessions/s [opts: race=SLUG, event=ID; default: the seeded results]"}
	sc.Phases = load.Rates(30*time.Second, 500, 1000, 2000)
	if opts.Target == nil { // listing only
		return sc, nil
	}
	slug, event := opts.String("race", ""), opts.String("event", "")
	if slug == "" && event == "" { // the event `tutti seed race` gave results
		s, id, err := seeded(opts.SeedFile)
		if err != nil {
			return nil, err
		}
		slug, event = s, strconv.FormatInt(id, 10)
	}
	if id, err := strconv.ParseInt(event, 10, 64); !races.ValidSlug(slug) || err != nil || id <= 0 {
		return nil, errors.New("race-results: give the event with results: --opt race=SLUG --opt event=ID")
	}
	s := &resultsLoad{base: "/race/r/" + slug + "/results/" + event}
	for _, list := range [][]string{seedFirstF, seedFirstM, seedLast} {
		for _, n := range list {
			s.words = append(s.words, Key(n))
		}
	}
	sc.Sessions = []load.Session{
		{Name: "results_page", Weight: 3, Run: s.page},
		{Name: "results_search", Weight: 1, Run: s.search},
		{Name: "results_names", Weight: 5, Run: s.names},
	}
	sc.Grace = 10 * time.Second
	return sc, nil
}

type resultsLoad struct {
	base  string   // the event's results page
	words []string // folded name words to search for
}

// prefix is the start of a random name word, of min to max letters.
func (s *resultsLoad) prefix(c *load.Client, lo, hi int) string {
	w := []rune(s.words[c.Intn(len(s.words))])
	n := min(len(w), lo+c.Intn(hi-lo+1))
	return string(w[:n])
}

// page: one of the first 50 pages of the list.
func (s *resultsLoad) page(ctx context.Context, c *load.Client) error {
	path := s.base
	if p := 1 + c.Intn(50); p > 1 {
		path += "?page=" + strconv.Itoa(p)
	}
	_, err := c.Get(ctx, "results_page", path)
	return err
}

// search: the form's GET with a name's start.
func (s *resultsLoad) search(ctx context.Context, c *load.Client) error {
	_, err := c.Get(ctx, "results_search", s.base+"?q="+url.QueryEscape(s.prefix(c, 3, 6)))
	return err
}

// names: the search box asking for suggestions as someone types.
func (s *resultsLoad) names(ctx context.Context, c *load.Client) error {
	p, err := c.Get(ctx, "results_names", s.base+"/names?q="+url.QueryEscape(s.prefix(c, 2, 4)))
	if err == nil && !strings.HasPrefix(string(p.Body), "[") {
		err = errors.New("race-results: suggestions are not a JSON list")
	}
	return err
}
