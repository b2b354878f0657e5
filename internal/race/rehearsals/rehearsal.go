package rehearsals

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/text"
)

// Bounds of a rehearsal's settings.
const (
	maxRunners    = 50_000
	maxDelay      = 600           // s, a page's think time and the initial spread
	maxRefundWait = 7 * 24 * 3600 // s
	// abandoned is how long without a heartbeat before a rehearsal under
	// way counts as dead with its instance.
	abandoned = 2 * time.Minute
	// domain is its runners' e-mail domain (mail.Undeliverable).
	domain = "rehearsal.tutti.invalid"
	// keep is how long a rehearsal's copy and runners stay after it ended
	// (and its registrations were refunded), for the director to look at,
	// before the sweep removes them.
	keep = time.Hour
)

// prefix begins the usernames and addresses of rehearsal id's runners
// ("rh12r": no other rehearsal's begins so).
func prefix(id int64) string { return "rh" + strconv.FormatInt(id, 10) + "r" }

var commentField = text.Field{Name: "The comment", Max: 2000, Multiline: true}

// settings are what a director asks of a rehearsal; times in seconds.
type settings struct {
	Event       int64 `json:"event"` // the event rehearsed; 0: a random event for each runner
	Runners     int   `json:"runners"`
	PageMin     int   `json:"page_min_s"`  // think time on each page of the wizard
	PageMax     int   `json:"page_max_s"`  //
	Within      int   `json:"within_s"`    // the greatest initial delay: runners arrive at random within it
	ClickMin    int   `json:"click_min_s"` // from the race page to clicking its sign-up link
	ClickMax    int   `json:"click_max_s"` //
	RefundDelay int   `json:"refund_delay_s"`
	Assets      bool  `json:"assets"` // runners fetch the pages' style sheets and scripts
}

// defaults are the form's first values: a small rush.
var defaults = settings{Runners: 200, PageMin: 2, PageMax: 10, Within: 30, ClickMin: 1, ClickMax: 5, RefundDelay: 60, Assets: true}

// wizard is how s's runners go through race's wizard.
func (s settings) wizard() Wizard {
	sec := func(n int) time.Duration { return time.Duration(n) * time.Second }
	return Wizard{Runners: s.Runners, Within: sec(s.Within), Delay: [2]time.Duration{sec(s.PageMin), sec(s.PageMax)},
		Click: [2]time.Duration{sec(s.ClickMin), sec(s.ClickMax)}, Assets: s.Assets, Domain: domain}
}

// input is the rehearsal form as typed.
type input struct {
	Event, Runners, PageMin, PageMax, Within, ClickMin, ClickMax, RefundDelay string
	Assets                                                                    bool
}

// input is s as the form shows it.
func (s settings) input() input {
	i := strconv.Itoa
	return input{Event: strconv.FormatInt(s.Event, 10), Runners: i(s.Runners), PageMin: i(s.PageMin), PageMax: i(s.PageMax),
		Within: i(s.Within), ClickMin: i(s.ClickMin), ClickMax: i(s.ClickMax), RefundDelay: i(s.RefundDelay), Assets: s.Assets}
}

// validate checks the form against race r's events to come at now;
// errors by field.
func (in input) validate(r *races.Race, now time.Time) (settings, map[string]string) {
	f := map[string]string{}
	num := func(field, v string, least, most int) int {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < least || n > most {
			f[field] = fmt.Sprintf("A whole number from %d to %d.", least, most)
		}
		return n
	}
	s := settings{Assets: in.Assets}
	s.Runners = num("runners", in.Runners, 1, maxRunners)
	s.PageMin = num("page_min", in.PageMin, 0, maxDelay)
	s.PageMax = num("page_max", in.PageMax, 0, maxDelay)
	s.Within = num("within", in.Within, 1, maxDelay)
	s.ClickMin = num("click_min", in.ClickMin, 0, maxDelay)
	s.ClickMax = num("click_max", in.ClickMax, 0, maxDelay)
	s.RefundDelay = num("refund_delay", in.RefundDelay, 0, maxRefundWait)
	if f["page_min"] == "" && f["page_max"] == "" && s.PageMax < s.PageMin {
		f["page_max"] = "At least the shortest."
	}
	if f["click_min"] == "" && f["click_max"] == "" && s.ClickMax < s.ClickMin {
		f["click_max"] = "At least the shortest."
	}
	if ev, err := strconv.ParseInt(strings.TrimSpace(in.Event), 10, 64); err != nil {
		f["event"] = "Choose an event."
	} else if e, ok := r.Event(ev); ev != 0 && (!ok || !e.StartsAt.After(now)) {
		f["event"] = "Choose an event of this race that has not started."
	} else {
		s.Event = ev
	}
	switch {
	case r.RehearsalOf != 0:
		f["event"] = "This is a rehearsal's copy: rehearse the race itself."
	case len(upcoming(r, now)) == 0:
		f["event"] = "The race has no event to come to rehearse."
	}
	return s, f
}

// upcoming are r's events that have not started at now.
func upcoming(r *races.Race, now time.Time) []races.Event {
	var out []races.Event
	for _, e := range r.Events {
		if e.StartsAt.After(now) {
			out = append(out, e)
		}
	}
	return out
}

// rehearsal is one rehearsal as stored.
type rehearsal struct {
	ID, RaceID, CopyID, CreatedBy int64
	CreatedAt, HeartbeatAt        time.Time
	FinishedAt                    *time.Time
	Settings                      settings
	Status                        string // preparing, running, stopping, done, failed
	Progress                      progress
	HasReport                     bool
	Error, Comment                string
	// Made and Refunded are the copy's registrations, kept when the copy
	// went (CopyID 0 then); CleanedAt is when the last of its runners'
	// accounts went.
	Made, Refunded int
	CleanedAt      *time.Time
}

// live reports whether the rehearsal is under way at now.
func (rh *rehearsal) live(now time.Time) bool {
	switch rh.Status {
	case "preparing", "running", "stopping":
		return now.Sub(rh.HeartbeatAt) < abandoned
	}
	return false
}

// progress are the live gauges, as the running instance last wrote them.
type progress struct {
	Stage      string  `json:"stage"`     // what it is doing: accounts, copy, running, finishing, ended
	Elapsed    float64 `json:"elapsed_s"` // since the first runner's arrival
	Arrived    int64   `json:"arrived"`
	Active     int64   `json:"active"` // runners in the wizard now
	Registered int64   `json:"registered"`
	Failed     int64   `json:"failed"` // runners whose visit ended otherwise (sold out, errors)
	Requests   int64   `json:"requests"`
	Errors     int64   `json:"errors"`
	PerSecond  float64 `json:"requests_per_s"` // in the last second
	Percent    int     `json:"percent"`        // runners done of all
}

// label says the stage as the director reads it.
func (p progress) label() string {
	switch p.Stage {
	case "accounts":
		return "making the runners' accounts"
	case "copy":
		return "copying the race"
	case "running":
		return "runners registering"
	case "finishing":
		return "the last runners finishing"
	case "ended":
		return "ended"
	}
	return "starting"
}

// report is a stored report as the page shows it.
type report struct {
	*load.Result
	Runners, Registered, NotRegistered int64
	SoldOut                            int64   // runners who found their place or an item sold out: their outcome, not a failure
	SuccessRate                        float64 // registered of the runners who could register, %; NaN when nobody registered
	PeakRequests                       int64   // requests in the busiest second
	PerHour                            float64 // estimated hourly registrations
	Span                               float64 // s, first arrival to last registration
}

// readReport decodes a stored report.
func readReport(js string) (*report, error) {
	var res load.Result
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		return nil, fmt.Errorf("race: rehearsal report: %w", err)
	}
	return summarize(&res), nil
}

// summarize is a run's report with the figures the page shows.
func summarize(res *load.Result) *report {
	rep := &report{Result: res}
	for _, s := range res.Sessions {
		if s.Name == "register" {
			// A session Stat counts the ones that ended well, and the
			// others as its errors.
			rep.Registered, rep.NotRegistered = s.Count, s.Errors
			rep.Runners = s.Count + s.Errors
			rep.PerHour, rep.Span = s.PerHour, s.SpanSeconds
		}
	}
	for kind, n := range res.Failed {
		switch strings.TrimPrefix(kind, "register ") {
		case races.OutcomeSoldOut, races.OutcomeExtraSoldOut:
			rep.SoldOut += n
		}
	}
	rep.SuccessRate = math.NaN()
	if could := rep.Runners - rep.SoldOut; rep.Registered > 0 && could > 0 {
		rep.SuccessRate = 100 * float64(rep.Registered) / float64(could)
	}
	rep.PeakRequests = res.PeakRequests()
	return rep
}

// selfURL is the loopback URL at which an instance listening on addr
// reaches itself; an error if it does not listen on loopback.
func selfURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	switch ip := net.ParseIP(host); {
	case host == "" || ip != nil && ip.IsUnspecified():
		host = "127.0.0.1"
	case host == "localhost" || ip != nil && ip.IsLoopback():
	default:
		return "", fmt.Errorf("it listens on %s, not on loopback", addr)
	}
	return "http://" + net.JoinHostPort(host, port), nil
}
