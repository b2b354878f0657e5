package checkout

import (
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/tutti-dev/tutti/internal/errs"
)

// State is where a purchase is in its life: held (its stock claimed while
// the buyer fills the forms), paying (a charge under way), paid (charged:
// handed to the app's writer), done (written: a registration, a rental),
// released (its stock given back, unpaid), refunded (its money given
// back). It is stored as its text, which an app's CHECK lists; held is
// stored as "open", the name race's rows were first written with.
type State string

// The states of a purchase.
const (
	Held     State = "open"
	Paying   State = "paying"
	Paid     State = "paid"
	Done     State = "done"
	Released State = "released"
	Refunded State = "refunded"
)

// States are every state, in the order of a purchase's life.
var States = []State{Held, Paying, Paid, Done, Released, Refunded}

// LiveStates are the states whose purchases keep their stock claimed
// (State.Live).
var LiveStates = []State{Held, Paying, Paid}

// next is the table of allowed transitions: from a state, the states it
// may move to.
var next = map[State][]State{
	// The buyer pays, or leaves (or the hold runs out).
	Held: {Paying, Released},
	// Charged; or declined, or settled as never charged (Gateway.Find):
	// held again, to pay under the next attempt's key; or sent again
	// (a retried submit, under the same key).
	Paying: {Paid, Held, Paying},
	// Written; or refunded without being written (rent: a request the
	// lender declined).
	Paid: {Done, Refunded},
	// Refunded after it was written (a cancellation).
	Done: {Refunded},
	// Its buyer came back and its stock was claimed again.
	Released: {Held},
}

// ErrTransition refuses a move the table does not allow: the page or the
// process that asked is stale (the purchase moved on meanwhile).
var ErrTransition = errs.E(errs.Conflict, "This purchase has moved on (in another window, or its hold ran out). Reload the page.")

// CanMove says the table allows s -> to.
func (s State) CanMove(to State) bool {
	for _, n := range next[s] {
		if n == to {
			return true
		}
	}
	return false
}

// To is to if s may move there, or ErrTransition (wrapped with both).
func (s State) To(to State) (State, error) {
	if !s.CanMove(to) {
		return s, fmt.Errorf("%w (%s -> %s)", ErrTransition, s.Name(), to.Name())
	}
	return to, nil
}

// Valid says s is one of States.
func (s State) Valid() bool {
	_, ok := next[s]
	return ok || s == Refunded
}

// Live says a purchase in s keeps its stock claimed: held, paying, paid.
func (s State) Live() bool { return s == Held || s == Paying || s == Paid }

// Final says nothing follows s but, for done, a refund.
func (s State) Final() bool { return s == Done || s == Released || s == Refunded }

// Name is s for people and logs: "held" for Held.
func (s State) Name() string {
	if s == Held {
		return "held"
	}
	return string(s)
}

// SQL is s as an SQL literal ('open'), for the statements that name the
// state they expect: a constant, never input.
func (s State) SQL() string { return "'" + string(s) + "'" }

// In is "col IN (...)" over states, for a WHERE that expects one of them.
func In(col string, states ...State) string {
	q := make([]string, len(states))
	for i, s := range states {
		q[i] = s.SQL()
	}
	return col + " IN (" + strings.Join(q, ", ") + ")"
}

// Move is a transition a statement makes: to from one of from, each
// allowed by the table (MustMove checks it once, at the program's start).
type Move struct {
	to   State
	from []State
}

// MustMove is the move to to from from; it panics if the table forbids
// any of them (a bug, found at start and by the tests).
func MustMove(to State, from ...State) Move {
	if len(from) == 0 {
		panic("checkout: a move from nowhere")
	}
	for _, f := range from {
		if !f.CanMove(to) {
			panic(fmt.Sprintf("checkout: %s -> %s is not a transition", f.Name(), to.Name()))
		}
	}
	return Move{to: to, from: from}
}

// To is where m goes.
func (m Move) To() State { return m.to }

// Set is m's assignment to column col: "status = 'paid'".
func (m Move) Set(col string) string { return col + " = " + m.to.SQL() }

// Where is m's condition on column col: "status = 'paying'" (or IN for
// several): the statement moves only a row in a state m starts from, so
// that two processes racing on one purchase move it once.
func (m Move) Where(col string) string {
	if len(m.from) == 1 {
		return col + " = " + m.from[0].SQL()
	}
	return In(col, m.from...)
}

// Value stores s as its text.
func (s State) Value() (driver.Value, error) { return string(s), nil }

// Scan reads a stored state, refusing one that is not a State.
func (s *State) Scan(v any) error {
	var t string
	switch v := v.(type) {
	case string:
		t = v
	case []byte:
		t = string(v)
	default:
		return fmt.Errorf("checkout: state from %T", v)
	}
	if !State(t).Valid() {
		return fmt.Errorf("checkout: unknown state %q", t)
	}
	*s = State(t)
	return nil
}
