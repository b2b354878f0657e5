package race

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
)

// After registering, a runner may correct their name, T-shirt size and
// team until the race's cutoff (Race.EditUntil; none: until their event
// starts), and cancel their registration until their event starts, with
// a refund by the race's rule (Refund). A director edits a registrant's
// details at any time (the runner is told), and closes or reopens an
// event's registration (Event.ClosedAt).

// ShirtSizes are the T-shirt sizes of a race that gives shirts.
var ShirtSizes = []string{"XS", "S", "M", "L", "XL", "XXL"}

// CleanShirt checks a T-shirt size as picked (field shirt): one of
// ShirtSizes when the race asks for one, else "" whatever was sent.
func CleanShirt(s string, asked bool) (string, string) {
	if !asked {
		return "", ""
	}
	if s = strings.ToUpper(strings.TrimSpace(s)); slices.Contains(ShirtSizes, s) {
		return s, ""
	}
	return "", "Pick your T-shirt size."
}

// Refund is a race's rule for a runner who cancels: Percent of what they
// paid (the entry, store items and donation alike) goes back to their
// card, 0 for none and 100 for all, if they cancel before Until (nil:
// before their event starts); nothing after.
type Refund struct {
	Percent int
	Until   *time.Time
}

// Refund rules as the form names them.
const (
	RefundNone    = "none"
	RefundFull    = "full"
	RefundPartial = "partial"
)

// Kind is the rule's name: none, full or partial.
func (rf Refund) Kind() string {
	switch rf.Percent {
	case 0:
		return RefundNone
	case 100:
		return RefundFull
	}
	return RefundPartial
}

// Share is percent of paid in minor units, rounded to the nearest one
// (halves up): integer arithmetic, never floats.
func Share(paid int64, percent int) int64 { return (paid*int64(percent) + 50) / 100 }

// EditDeadline is until when a runner of event e may change their
// details: the race's cutoff, or e's start if that comes first.
func (r *Race) EditDeadline(e *Event) time.Time {
	if r.EditUntil != nil && r.EditUntil.Before(e.StartsAt) {
		return *r.EditUntil
	}
	return e.StartsAt
}

// RefundDeadline is until when a runner of event e who cancels gets the
// rule's refund: its date, or e's start if that comes first.
func (r *Race) RefundDeadline(e *Event) time.Time {
	if r.Refund.Until != nil && r.Refund.Until.Before(e.StartsAt) {
		return *r.Refund.Until
	}
	return e.StartsAt
}

// RefundPercentAt is the share of what they paid that a runner of event
// e who cancels at now gets back: the rule's until its date, then none.
func (r *Race) RefundPercentAt(e *Event, now time.Time) int {
	if !now.Before(r.RefundDeadline(e)) {
		return 0
	}
	return r.Refund.Percent
}

// PolicyInput is the form of what runners may change, as typed: the
// cutoff of changes and the refund-until date as dates and times on the
// race's clock ("" and "": until the event starts).
type PolicyInput struct {
	EditDate, EditTime   string
	Refund               string // none, full, partial
	Percent              string // partial's share, 1 to 99
	UntilDate, UntilTime string
}

// Validate checks the form for race r (fields edit_until, refund,
// percent, refund_until); times go through walltime's rule, as an
// event's do.
func (in PolicyInput) Validate(r *Race) (editUntil *time.Time, rf Refund, f map[string]string) {
	f = map[string]string{}
	loc := r.Loc()
	editUntil = optionalWallTime(f, "edit_until", in.EditDate, in.EditTime, loc)
	switch strings.TrimSpace(in.Refund) {
	case RefundNone:
		return editUntil, rf, f
	case RefundFull:
		rf.Percent = 100
	case RefundPartial:
		p, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(in.Percent), "%")))
		if err != nil || p < 1 || p > 99 {
			f["percent"] = "Give the share refunded as a whole percentage from 1 to 99 (or choose a full refund, or none)."
		}
		rf.Percent = p
	default:
		f["refund"] = "Choose a refund rule."
	}
	rf.Until = optionalWallTime(f, "refund_until", in.UntilDate, in.UntilTime, loc)
	return editUntil, rf, f
}

// optionalWallTime is date and clock on loc's clock (field key), or nil
// when both are empty.
func optionalWallTime(f map[string]string, key, date, clock string, loc *time.Location) *time.Time {
	date, clock = strings.TrimSpace(date), strings.TrimSpace(clock)
	switch {
	case date == "" && clock == "":
		return nil
	case date == "" || clock == "":
		f[key] = "Give a date and a time, or leave both empty (until the event starts)."
		return nil
	}
	t := wallTime(f, key, date, clock, loc, "Give a date as YYYY-MM-DD and a time as HH:MM.")
	return &t
}

// policyOf is race r's rule as its form shows it.
func policyOf(r *Race) PolicyInput {
	loc := r.Loc()
	in := PolicyInput{EditDate: dateIn(r.EditUntil, loc), EditTime: clockIn(r.EditUntil, loc), Refund: r.Refund.Kind(),
		UntilDate: dateIn(r.Refund.Until, loc), UntilTime: clockIn(r.Refund.Until, loc)}
	if in.Refund == RefundPartial {
		in.Percent = strconv.Itoa(r.Refund.Percent)
	}
	return in
}

// ChangeInput is the change of a registration's details as typed: by its
// runner until the cutoff, or by a director.
type ChangeInput struct{ FirstName, LastName, Shirt, Team string }

// Validate checks the change for race r with the wizard's own checks
// (fields first_name, last_name, shirt, team): the T-shirt size only if
// r gives shirts, the team only if it has teams.
func (in ChangeInput) Validate(r *Race) (ChangeInput, map[string]string) {
	f := map[string]string{}
	var out ChangeInput
	var msg string
	out.FirstName, out.LastName = cleanNames(in.FirstName, in.LastName, f)
	if out.Shirt, msg = CleanShirt(in.Shirt, r.Shirts); msg != "" {
		f["shirt"] = msg
	}
	if r.Teams {
		if out.Team, msg = CleanTeam(in.Team); msg != "" {
			f["team"] = msg
		}
	}
	return out, f
}

// changeOf is registration g's details as the change form shows them.
func changeOf(g *Registration) ChangeInput {
	return ChangeInput{FirstName: g.FirstName, LastName: g.LastName, Shirt: g.Shirt, Team: g.TeamName}
}

// refundText says what a cancellation by its runner gives back:
// "25.25 USD (50 % of 50.50 USD)", "50.50 USD (all you paid)".
func refundText(amount, paid int64, percent int, currency checkout.Currency) string {
	if percent == 100 {
		return checkout.Of(amount, currency).Price() + " (all you paid)"
	}
	return fmt.Sprintf("%s (%d %% of %s)", checkout.Of(amount, currency).Price(), percent, checkout.Of(paid, currency).Price())
}
