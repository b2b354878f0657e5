// Package races is what every part of race reads about a race: the race
// day (its name, place, date and zone, whether it is published) and its
// events and their places (Places), the director's view of one
// (Directing, handed to handlers by the directing middleware of race's
// admin routes), and the addresses of its pages. It is a leaf: race and
// its sub-packages (results, waitlist, rehearsals) import it, it imports
// none of them, so no arrow runs back up.
//
// race's own Race embeds Race with what registration adds (the wizard's
// text, extras, the refund rule); race.Event is Event.
package races
