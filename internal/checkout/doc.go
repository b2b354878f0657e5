// Package checkout holds what every app that sells something needs, so
// that race (registrations) and rent (rentals) share one of each:
//
//   - Money: an exact amount in a currency's minor units, parsed from what
//     people type and formatted for them in one place (money.go);
//   - Stock: a counted stock (an event's places, a store item's units, a
//     code's uses, a listing's units on a day) claimed and given back by
//     one pair of conditional UPDATEs that never go over the cap, in
//     both dialects (stock.go);
//   - State: a purchase's life, held -> paying -> paid -> done, or
//     released, or refunded, with its table of allowed transitions and
//     the SQL fragments of a guarded move (state.go);
//   - the charge through a pay.Gateway: a key per attempt (Key), the
//     outcome that moves the purchase (Charge), and a lost answer settled
//     by asking the gateway (Settle) (pay.go);
//   - Writer: the durable hand-off (HandOff: paid, committed before the
//     buyer is told), paid purchases written in batches by the app's
//     WritePaid on every instance, a buyer's wait for its purchase
//     (Await) told across instances through the bus, and a sweep every
//     10 s that releases expired holds (the app gives their stock back),
//     runs the app's own periodic work and settles stale payments; Sweep
//     runs one now, for tests (writer.go);
//   - refunds as jobs: QueueRefund in the cancelling transaction, and
//     RunRefund in the app's handler of RefundKind (refunds.go).
//
// An app keeps what a purchase means to it (race: a bib, a team, a mail),
// and gives its Writer the functions that move its rows (Config).
package checkout
