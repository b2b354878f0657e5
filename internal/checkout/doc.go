// Package checkout holds what every app that sells something needs, so
// that race (registrations) and rent (rentals) share one of each:
//
//   - Money: an exact amount in a currency's minor units, parsed from what
//     people type and formatted for them in one place (money.go).
//
// An app keeps what a purchase means to it (race: a bib, a team, a mail).
package checkout
