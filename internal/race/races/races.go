package races

import (
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/walltime"
)

// Race is a race day as every part of race reads it: its events are what
// runners register for.
type Race struct {
	ID          int64
	Slug        string
	OwnerID     int64
	Name        string
	Location    string
	Date        string // YYYY-MM-DD, the race day in TZ
	TZ          string
	PublishedAt *time.Time
	Version     int64
	Events      []Event
	// RehearsalOf is the race this one is a load rehearsal's copy of; 0
	// for a real race.
	RehearsalOf int64
}

// Published reports whether runners can see the race.
func (r *Race) Published() bool { return r.PublishedAt != nil }

// Loc is the race's zone (UTC if it no longer loads).
func (r *Race) Loc() *time.Location {
	if loc, err := walltime.Location(r.TZ); err == nil {
		return loc
	}
	return time.UTC
}

// NoticeClock is t on the wall clock of zone tz, with the zone, as notices
// and mails say times: "Saturday 10 April 2027, 09:30 CEST (Europe/Berlin)"
// (UTC, so named, should the zone no longer load).
func NoticeClock(t time.Time, tz string) string {
	loc, err := walltime.Location(tz)
	if err != nil {
		loc, tz = time.UTC, "UTC"
	}
	return walltime.Clock(t, loc, "Monday 2 January 2006, 15:04 MST") + " (" + tz + ")"
}

// Event finds the race's event id.
func (r *Race) Event(id int64) (*Event, bool) {
	for i := range r.Events {
		if r.Events[i].ID == id {
			return &r.Events[i], true
		}
	}
	return nil, false
}

// Day is the race day as pages write it: "Saturday 10 April 2027".
func (r *Race) Day() string {
	d, err := time.Parse(time.DateOnly, r.Date)
	if err != nil {
		return r.Date
	}
	return d.Format("Monday 2 January 2006")
}

// Clock is an instant as the race's clock shows it in layout, with the
// offset where that clock reading occurs twice.
func (r *Race) Clock(t time.Time, layout string) string {
	return walltime.Clock(t, r.Loc(), layout)
}

// Event is one distance of a race, with its own places and price.
type Event struct {
	ID        int64
	RaceID    int64
	Name      string
	StartsAt  time.Time
	OpensAt   time.Time // registration opens
	ClosesAt  time.Time // registration closes
	Price     int64     // in cents
	Cap       int       // places
	Taken     int       // confirmed and held places, and those kept for invitations
	Confirmed int
	Waiting   int // runners on the waiting list not yet invited
	// Lottery: the places are drawn at DrawAt among the runners who
	// entered since OpensAt; DrawnAt is when that happened.
	Lottery         bool
	DrawAt, DrawnAt *time.Time
	// ResultsCount is how many results are imported (package results);
	// runners see them once ResultsPublishedAt is set.
	ResultsCount       int
	ResultsPublishedAt *time.Time
	// ClosedAt is when a director closed the event's registration (nil:
	// open by its times): no new holds, waiting-list joins or lottery
	// entries; places held and invitations sent may still be used.
	ClosedAt *time.Time
}

// Left is the places neither confirmed nor held, nor kept for the
// waiting list.
func (e *Event) Left() int {
	if e.Waiting > 0 {
		return 0
	}
	return max(e.Cap-e.Taken, 0)
}

// ResultsOut reports whether runners can see the event's results.
func (e *Event) ResultsOut() bool { return e.ResultsPublishedAt != nil && e.ResultsCount > 0 }

// Phase is where an event's registration stands.
type Phase int

const (
	NotOpen Phase = iota // before OpensAt
	Open
	SoldOut  // every place confirmed or held (or a lottery being drawn)
	Closed   // after ClosesAt, or closed by a director
	Entering // a lottery's entries are open (until DrawAt)
)

// Phase is the event's registration phase at now.
func (e *Event) Phase(now time.Time) Phase {
	switch {
	case e.ClosedAt != nil:
		return Closed
	case now.Before(e.OpensAt):
		return NotOpen
	case !now.Before(e.ClosesAt):
		return Closed
	case e.Lottery && e.DrawnAt == nil && e.DrawAt != nil && now.Before(*e.DrawAt):
		return Entering
	case e.Lottery && e.DrawnAt == nil: // drawn at the next sweep
		return SoldOut
	case e.Taken >= e.Cap || e.Waiting > 0: // a place that comes back goes to the list
		return SoldOut
	}
	return Open
}

// The outcomes of a load runner (race's wizard, load.Outcome) who found
// what they chose sold out: the event's places, or a store item. A
// rehearsal's report counts them apart: the runner's outcome, not the
// site's failure.
const (
	OutcomeSoldOut      = "sold_out"
	OutcomeExtraSoldOut = "extra_sold_out"
)

// What looking a race up can answer.
var (
	ErrNoRace      = errs.E(errs.NotFound, "There is no such race.")
	ErrNotDirector = errs.E(errs.Forbidden, "Only this race's directors can do that.")
)

// VersionScope is race's scope in the versions service: a race's stamp is
// its version column, keyed by slug. A write to a race raises it, and
// every page cached under it is stale at once.
const VersionScope = "race"

// ValidSlug reports whether s could be a slug, so that garbage never
// reaches the database.
func ValidSlug(s string) bool {
	if len(s) < 3 || len(s) > 70 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// URL is race slug's page; AdminURL its directors' pages.
func URL(slug string) string      { return "/race/r/" + slug }
func AdminURL(slug string) string { return URL(slug) + "/admin" }

// ParseID reads an id in a path: a positive decimal number, else not
// found.
func ParseID(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, errs.ErrNotFound
	}
	return n, nil
}

// Plural is one or many as n asks.
func Plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Thousands writes n with thousands separators: 100 000 (narrow spaces).
func Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "\u202f" + s[i:] // a narrow space: never mixed up with the decimal point
	}
	return s
}
