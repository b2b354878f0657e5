package races

import "github.com/tutti-dev/tutti/internal/checkout"

// Places is an event's places as a counted stock (checkout.Stock):
// race_events.taken out of cap. A runner's hold claims one (race); an
// invitation from the waiting list keeps one until it is used or runs out
// (package waitlist).
var Places = checkout.NewStock("race_events", "taken", "cap", false)
