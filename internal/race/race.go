package race

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/text"
	"github.com/tutti-dev/tutti/internal/walltime"
)

// Race is a race day (races.Race: its name, place, day, events) with
// what registration adds: its events are what runners register for.
type Race struct {
	races.Race
	Description string
	Info        string            // what runners should know (start, parking, packet pickup)
	Waiver      string            // the text every runner accepts
	Logo        string            // uploaded logo's URL; "" for none
	Currency    checkout.Currency // ISO 4217, lower case
	// Extras (extras.go): teams on, the fundraiser ("" for none), the
	// store's items.
	Teams      bool
	Fundraiser string
	Items      []Item
	// EarlyCodes: the race has early-access codes (codes.go), so its
	// page offers a way in before an event opens.
	EarlyCodes bool
	// What runners may change after registering (changes.go): their
	// details until EditUntil (nil: until their event starts), and a
	// cancellation refunded by Refund's rule; Shirts: the details page
	// asks for a T-shirt size.
	EditUntil *time.Time
	Refund    Refund
	Shirts    bool
}

// Event is one distance of a race, with its own places and price.
type Event = races.Event

// Phase is where an event's registration stands.
type Phase = races.Phase

// An event's phases (races.Phase).
const (
	NotOpen  = races.NotOpen
	Open     = races.Open
	SoldOut  = races.SoldOut
	Closed   = races.Closed
	Entering = races.Entering
)

// Hold is a runner's place in an event while they fill the wizard, with the
// wizard's answers so far.
type Hold struct {
	ID      string
	EventID int64
	RaceID  int64
	UserID  int64
	// Status is where the hold is in a purchase's life (checkout.State):
	// held (stored "open") while the runner fills the wizard, released
	// after its expiry; paying while the charge is under way; paid, queued
	// for the registration writer; done, written as a registration;
	// released, its place gone back.
	Status    checkout.State
	ExpiresAt time.Time
	Entrant
	// Base is the origin of the request that made the hold (web.Origin),
	// for the links of its confirmation mail (mail.Mailer.Base).
	Base      string
	Step      int        // the last wizard step done (steps)
	WaiverAt  *time.Time // when the waiver was accepted
	Amount    int64      // what is charged
	PaymentID string
	Attempt   int // declined charges so far (payKey)
	// The extras chosen: the team (0 for none; TeamName is its name),
	// the donation, and the store lines (loaded when the race has a store).
	TeamID   int64
	TeamName string
	Donation int64
	Lines    []Line
	// The code applied (codes.go): its id (0 for none), as typed, and
	// what it takes off the entry, fixed when applied.
	CodeID   int64
	Code     string
	Discount int64
}

// Entrant is who runs: what the details page asks.
type Entrant struct {
	FirstName, LastName string
	Email               string
	BirthDate           string // YYYY-MM-DD
	Gender              string // F, M, X
	City                string
	Emergency           string // a name and a phone number
	Shirt               string // a T-shirt size (ShirtSizes); "" when the race gives none
}

// Registration is a confirmed entry.
type Registration struct {
	ID      int64
	HoldID  string
	RaceID  int64
	EventID int64
	UserID  int64
	Bib     int
	Entrant
	Amount      int64  // the event's price, the donation and the store lines
	TeamID      int64  // 0 for none
	TeamName    string // read where shown
	Donation    int64
	PaymentID   string
	Status      string // confirmed, cancelled
	CreatedAt   time.Time
	CancelledAt *time.Time
	CheckedInAt *time.Time // the bib picked up on race day (the check-in list)
}

// Limits on what directors and runners type.
const (
	MaxEvents   = 20
	MaxCap      = 100_000
	MaxPrice    = 10_000_00 // 10,000 in major units
	MaxNameLen  = 100
	MaxLongText = 20_000
)

var (
	raceNameField = text.Field{Name: "The race's name", Min: 3, Max: MaxNameLen, Empty: "Give the race a name."}
	locationField = text.Field{Name: "The location", Min: 2, Max: 200, Empty: "Say where the race is."}
	longField     = text.Field{Name: "This text", Max: MaxLongText, Multiline: true}
	eventField    = text.Field{Name: "The event's name", Min: 1, Max: MaxNameLen, Empty: "Name the event (\"10K\", \"Marathon\")."}
	personField   = text.Field{Name: "The name", Min: 1, Max: 60, Empty: "Fill this in."}
	cityField     = text.Field{Name: "The city", Max: 100}
	contactField  = text.Field{Name: "The emergency contact", Min: 5, Max: 160, Empty: "Give someone we can call on race day, with their phone number."}
)

// Currencies directors may pick.
var Currencies = []checkout.Currency{"usd", "eur", "gbp", "cad", "aud", "chf", "sek", "nzd"}

// RaceInput is the basics form as typed.
type RaceInput struct {
	Name, Location, Date, TZ, Description, Currency string
}

// Validate checks the basics and returns them as a Race (without ids), or a
// message per field (name, location, date, tz, description, currency).
func (in RaceInput) Validate(now time.Time) (Race, map[string]string) {
	f := map[string]string{}
	var r Race
	var msg string
	if r.Name, msg = raceNameField.Clean(in.Name); msg != "" {
		f["name"] = msg
	}
	if r.Location, msg = locationField.Clean(in.Location); msg != "" {
		f["location"] = msg
	}
	if r.Description, msg = longField.Clean(in.Description); msg != "" {
		f["description"] = msg
	}
	r.TZ = strings.TrimSpace(in.TZ)
	if r.TZ == "" {
		r.TZ = "UTC"
	}
	if _, err := walltime.Location(r.TZ); err != nil || r.TZ == "Local" {
		f["tz"] = "Pick a time zone from the list."
	}
	d, err := time.Parse(time.DateOnly, strings.TrimSpace(in.Date))
	switch {
	case err != nil:
		f["date"] = "Give the race day as YYYY-MM-DD."
	case d.Before(now.AddDate(0, 0, -1).Truncate(24 * time.Hour)):
		f["date"] = "The race day has passed."
	case d.After(now.AddDate(5, 0, 0)):
		f["date"] = "Pick a race day within five years."
	}
	r.Date = d.Format(time.DateOnly)
	r.Currency = checkout.Currency(strings.ToLower(strings.TrimSpace(in.Currency)))
	if r.Currency == "" {
		r.Currency = "usd"
	}
	if !slices.Contains(Currencies, r.Currency) {
		f["currency"] = "Pick a currency from the list."
	}
	return r, f
}

// TextInput is the text and waiver form.
type TextInput struct{ Info, Waiver string }

// Validate checks the texts (fields info, waiver).
func (in TextInput) Validate() (info, waiver string, f map[string]string) {
	f = map[string]string{}
	var msg string
	if info, msg = longField.Clean(in.Info); msg != "" {
		f["info"] = msg
	}
	if waiver, msg = longField.Clean(in.Waiver); msg != "" {
		f["waiver"] = msg
	}
	return info, waiver, f
}

// EventInput is an event's form as typed: times are wall-clock times in the
// race's zone.
type EventInput struct {
	Name                   string
	StartTime              string // HH:MM on the race day
	OpensDate, OpensTime   string // registration opens
	ClosesDate, ClosesTime string
	Price                  string // "45" or "45.50"
	Cap                    string
	Lottery                bool // the places are drawn at the draw time
	DrawDate, DrawTime     string
}

// Validate checks an event of race r (fields name, start_time, opens,
// closes, price, cap, draw). Wall-clock times go through walltime's rule: a
// skipped time is the instant the clock jumps to, a repeated one its
// first occurrence.
func (in EventInput) Validate(r *Race) (Event, map[string]string) {
	f := map[string]string{}
	var e Event
	var msg string
	if e.Name, msg = eventField.Clean(in.Name); msg != "" {
		f["name"] = msg
	}
	loc := r.Loc()
	e.StartsAt = wallTime(f, "start_time", r.Date, in.StartTime, loc, "Give the start time as HH:MM.")
	e.OpensAt = wallTime(f, "opens", in.OpensDate, in.OpensTime, loc, "Give when registration opens as a date and a time.")
	e.ClosesAt = wallTime(f, "closes", in.ClosesDate, in.ClosesTime, loc, "Give when registration closes as a date and a time.")
	if f["opens"] == "" && f["closes"] == "" && !e.OpensAt.Before(e.ClosesAt) {
		f["closes"] = "Registration must close after it opens."
	}
	if f["closes"] == "" && f["start_time"] == "" && e.ClosesAt.After(e.StartsAt) {
		f["closes"] = "Registration must close by the start."
	}
	if e.Price, msg = parseMoney(in.Price, r.Currency); msg != "" {
		f["price"] = msg
	}
	c, err := strconv.Atoi(strings.TrimSpace(strings.ReplaceAll(in.Cap, ",", "")))
	if err != nil || c < 1 || c > MaxCap {
		f["cap"] = fmt.Sprintf("Give the number of places, from 1 to %d.", MaxCap)
	}
	e.Cap = c
	if e.Lottery = in.Lottery; e.Lottery {
		at := wallTime(f, "draw", in.DrawDate, in.DrawTime, loc, "Give when the places are drawn as a date and a time.")
		switch {
		case f["draw"] != "":
		case f["opens"] == "" && f["closes"] == "" && (!at.After(e.OpensAt) || !at.Before(e.ClosesAt)):
			f["draw"] = "Draw the places after registration opens and before it closes (runners enter until the draw)."
		}
		e.DrawAt = &at
	}
	return e, f
}

// parseMoney reads a price typed in currency c (checkout.Parse: "45",
// "45.50", "45,50", "$1,250.00") as minor units, at most MaxPrice, or
// returns a message.
func parseMoney(s string, c checkout.Currency) (int64, string) {
	m, err := checkout.ParseNonNegative(s, c)
	switch {
	case errors.Is(err, checkout.ErrEmpty):
		return 0, "Give a price (0 for a free event)."
	case err != nil:
		return 0, "Give the price as a number such as 45 or 45.50."
	case m.Minor > MaxPrice:
		return 0, fmt.Sprintf("A price is at most %s.", checkout.Of(MaxPrice, "").Decimal())
	}
	return m.Minor, ""
}

// EntrantInput is the details page as typed.
type EntrantInput struct {
	FirstName, LastName, Email, BirthDate, Gender, City, Emergency, Shirt string
}

// Genders are the details page's choices.
var Genders = []struct{ Value, Label string }{{"F", "Female"}, {"M", "Male"}, {"X", "Non-binary"}}

// Validate checks the details (fields first_name, last_name, email,
// birth_date, gender, city, emergency, shirt) for race r: on its day a
// runner must be between 5 and 110, and a race that gives T-shirts asks
// for a size.
func (in EntrantInput) Validate(r *Race, checkEmail func(string) string) (Entrant, map[string]string) {
	f := map[string]string{}
	var e Entrant
	var msg string
	e.FirstName, e.LastName = cleanNames(in.FirstName, in.LastName, f)
	if e.Shirt, msg = CleanShirt(in.Shirt, r.Shirts); msg != "" {
		f["shirt"] = msg
	}
	raceDay := r.Date
	e.Email = strings.TrimSpace(in.Email)
	if msg := checkEmail(e.Email); msg != "" {
		f["email"] = msg
	}
	b, err := time.Parse(time.DateOnly, strings.TrimSpace(in.BirthDate))
	day, _ := time.Parse(time.DateOnly, raceDay)
	switch {
	case err != nil:
		f["birth_date"] = "Give your date of birth as YYYY-MM-DD."
	case b.After(day.AddDate(-5, 0, 0)):
		f["birth_date"] = "Runners must be at least 5 on race day."
	case b.Before(day.AddDate(-110, 0, 0)):
		f["birth_date"] = "Check the year of your date of birth."
	}
	e.BirthDate = b.Format(time.DateOnly)
	e.Gender = strings.TrimSpace(in.Gender)
	ok := false
	for _, g := range Genders {
		ok = ok || g.Value == e.Gender
	}
	if !ok {
		f["gender"] = "Pick one."
	}
	if e.City, msg = cityField.Clean(in.City); msg != "" {
		f["city"] = msg
	}
	if e.Emergency, msg = contactField.Clean(in.Emergency); msg != "" {
		f["emergency"] = msg
	}
	return e, f
}

// cleanNames checks a runner's first and last names (fields first_name,
// last_name): the details page's check, and the change of them after.
func cleanNames(first, last string, f map[string]string) (string, string) {
	first, msg := personField.Clean(first)
	if msg != "" {
		f["first_name"] = msg
	}
	if last, msg = personField.Clean(last); msg != "" {
		f["last_name"] = msg
	}
	return first, last
}

// NameKey is a name folded for search: lower case, letters and digits.
func NameKey(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space = false
		} else {
			space = true
		}
	}
	return b.String()
}

// Slugify makes a URL name from a race's name: "City Marathon 2027" ->
// "city-marathon-2027".
func Slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	if b.Len() < 3 {
		return "race"
	}
	return b.String()
}

// ValidSlug reports whether s could be a slug (races.ValidSlug).
func ValidSlug(s string) bool { return races.ValidSlug(s) }

// thousands writes n with thousands separators (races.Thousands).
func thousands(n int) string { return races.Thousands(n) }
