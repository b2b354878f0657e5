package meet

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/load"
)

// LoadScenario is the seed report's experiment: six sessions picked with
// weights (view a poll 10, each other 1) over seven 60 s phases of 2 to 128
// new sessions per second, against the `tutti seed meet` data set.
func LoadScenario(opts load.Options) (*load.Scenario, error) {
	sc := &load.Scenario{
		Name:        "meet",
		Description: "schedule.me's six sessions (view poll x10) over seven phases, 2 to 128 new sessions/s",
	}
	sc.Phases = load.Rates(time.Minute, 2, 4, 8, 16, 32, 64, 128)
	if opts.Target == nil { // listing only
		return sc, nil
	}
	ids, err := LoadSeedIDs(opts.SeedFile)
	if err != nil {
		return nil, err
	}
	s := &scenario{ids: ids}
	sc.Sessions = []load.Session{
		{Name: "create_poll", Weight: 1, Run: s.createPoll},
		{Name: "populate_poll", Weight: 1, Run: s.populatePoll},
		{Name: "join_poll", Weight: 1, Run: s.joinPoll},
		{Name: "edit_availability", Weight: 1, Run: s.editAvailability},
		{Name: "write_comment", Weight: 1, Run: s.writeComment},
		{Name: "view_poll", Weight: 10, Run: s.viewPoll},
	}
	return sc, nil
}

type scenario struct{ ids *SeedIDs }

func (s *scenario) poll(c *load.Client) SeedPoll { return s.ids.Polls[c.Intn(len(s.ids.Polls))] }

func think(ctx context.Context, c *load.Client) error {
	return c.Think(ctx, 500*time.Millisecond, 2*time.Second)
}

// createPoll: the polls page, the form, a new poll, its admin page.
func (s *scenario) createPoll(ctx context.Context, c *load.Client) error {
	if _, err := c.Get(ctx, "polls", "/meet/"); err != nil {
		return err
	}
	if err := think(ctx, c); err != nil {
		return err
	}
	p, err := c.Get(ctx, "new_poll", "/meet/polls/new")
	if err != nil {
		return err
	}
	f, err := p.Form("#poll-form")
	if err != nil {
		return err
	}
	start := time.Now().AddDate(0, 0, 7+c.Intn(30))
	f.Set("title", fmt.Sprintf("Load test poll %d", c.Intn(1_000_000)))
	f.Set("start_date", start.Format(time.DateOnly))
	f.Set("end_date", start.AddDate(0, 0, 4).Format(time.DateOnly))
	f.Set("tz", "UTC")
	if err := think(ctx, c); err != nil {
		return err
	}
	_, err = c.Submit(ctx, "create_poll", f)
	return err
}

// join opens a poll page, adds a participant and gives one timeframe through
// the form, like a person without JavaScript would.
func (s *scenario) join(ctx context.Context, c *load.Client, pollID string, thinking bool) error {
	p, err := c.Get(ctx, "view_poll", "/meet/polls/"+pollID)
	if err != nil {
		return err
	}
	if thinking {
		if err := think(ctx, c); err != nil {
			return err
		}
	}
	f, err := p.Form("#join-form")
	if err != nil {
		return err
	}
	f.Set("name", fmt.Sprintf("Guest %d", c.Intn(1_000_000_000)))
	own, err := c.Submit(ctx, "join", f)
	if err != nil {
		return err
	}
	return s.addTimeframe(ctx, c, own, thinking)
}

func (s *scenario) addTimeframe(ctx context.Context, c *load.Client, own *load.Page, thinking bool) error {
	if thinking {
		if err := think(ctx, c); err != nil {
			return err
		}
	}
	f, err := own.Form("#timeframe-form")
	if err != nil {
		return err
	}
	first, err := time.Parse(time.DateOnly, own.Attr("tf-date", "min"))
	if err != nil {
		return fmt.Errorf("no date range on %s", own.URL.Path)
	}
	h := 9 + c.Intn(6)
	f.Set("date", first.AddDate(0, 0, c.Intn(3)).Format(time.DateOnly))
	f.Set("start", fmt.Sprintf("%02d:%02d", h, 15*c.Intn(4)))
	f.Set("end", fmt.Sprintf("%02d:00", h+1+c.Intn(2)))
	f.Set("tier", strconv.Itoa(1+c.Intn(3)))
	_, err = c.Submit(ctx, "add_timeframe", f)
	return err
}

// populatePoll: several people join one poll, one after another.
func (s *scenario) populatePoll(ctx context.Context, c *load.Client) error {
	id := s.poll(c).ID
	for range 3 + c.Intn(3) {
		if err := s.join(ctx, c, id, false); err != nil {
			return err
		}
	}
	return nil
}

// joinPoll: open a poll, add yourself, enter availability.
func (s *scenario) joinPoll(ctx context.Context, c *load.Client) error {
	return s.join(ctx, c, s.poll(c).ID, true)
}

func (s *scenario) ownPage(ctx context.Context, c *load.Client) (*load.Page, error) {
	pt := s.ids.Participants[c.Intn(len(s.ids.Participants))]
	return c.Get(ctx, "participant_page", "/meet/polls/"+pt.PollID+"/p/"+strconv.FormatInt(pt.ID, 10)+"/"+url.PathEscape(pt.Token))
}

// editAvailability: an existing participant opens their link and adds a timeframe.
func (s *scenario) editAvailability(ctx context.Context, c *load.Client) error {
	own, err := s.ownPage(ctx, c)
	if err != nil {
		return err
	}
	return s.addTimeframe(ctx, c, own, true)
}

// writeComment: a participant writes a comment.
func (s *scenario) writeComment(ctx context.Context, c *load.Client) error {
	own, err := s.ownPage(ctx, c)
	if err != nil {
		return err
	}
	if err := think(ctx, c); err != nil {
		return err
	}
	f, err := own.Form("#comment-form")
	if err != nil {
		return err
	}
	f.Set("body", fmt.Sprintf("Load test comment %d: that works for me.", c.Intn(1_000_000)))
	_, err = c.Submit(ctx, "write_comment", f)
	return err
}

// viewPoll: look at a poll, then at the next page of its participants.
func (s *scenario) viewPoll(ctx context.Context, c *load.Client) error {
	id := s.poll(c).ID
	p, err := c.Get(ctx, "view_poll", "/meet/polls/"+id)
	if err != nil {
		return err
	}
	if next := p.Links("?after="); len(next) > 0 {
		if err := think(ctx, c); err != nil {
			return err
		}
		_, err = c.Get(ctx, "view_poll_page2", next[0])
	}
	return err
}
