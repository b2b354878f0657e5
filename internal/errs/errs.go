// Package errs gives errors a kind and a message that is safe to show a user.
//
// Stores and handlers return errors made here (or wrap them with %w); one
// function in package web maps the kind to a status page or a JSON problem.
// Internal errors are logged with the request id and never shown.
//
// Every app uses it for every error a user may see: E(kind, message) for
// a refusal, Fields for form errors by field (the form is shown again with
// them), Slow for a 429 with its Retry-After, and the store's ErrNotFound
// and ErrConflict, which the db package's driver-error translation returns.
// Any other error is Internal: a 500 whose details stay in the log.
package errs

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies an error for its HTTP status.
type Kind int

// The kinds, from most to least common.
const (
	Internal     Kind = iota // 500: a bug or a broken dependency
	Invalid                  // 422: bad input, with field messages
	NotFound                 // 404
	Conflict                 // 409: a unique key taken, a stale version, a closed poll
	Forbidden                // 403: authenticated but not allowed
	Unauthorized             // 401: not signed in
	TooLarge                 // 413
	TooMany                  // 429
	BadRequest               // 400: a malformed request, e.g. a query parameter (no form fields)
	Repeated                 // 409: a request a proxy sent again after it was carried out (ErrRepeated)
)

// None is no error at all: what KindOf(nil) returns.
const None Kind = -1

// Error is an error with a kind and a safe message.
type Error struct {
	Kind       Kind
	Message    string            // safe to show the user
	Fields     map[string]string // field -> message, for Invalid
	RetryAfter time.Duration     // for TooMany: when to try again (the Retry-After header)
	Err        error             // the cause, for logs only
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Sentinels that stores return (wrapped with %w) and that errors.Is matches.
var (
	ErrNotFound = &Error{Kind: NotFound, Message: "Not found."}
	ErrConflict = &Error{Kind: Conflict, Message: "That conflicts with what is already there."}
	// ErrRepeated is a request sent a second time after its first send was
	// carried out (a proxy's retry): nothing was done twice.
	// Its own kind, so that no handler takes it for a conflict with the
	// form's input: it always reaches web.Site.Error, which sends a
	// browser back to the page it came from.
	ErrRepeated = &Error{Kind: Repeated, Message: "This was already done; it was not done a second time."}
)

// E makes an error of kind with a safe message.
func E(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Fields makes an Invalid error carrying field messages.
func Fields(fields map[string]string) *Error {
	return &Error{Kind: Invalid, Message: "Please correct the marked fields.", Fields: fields}
}

// FieldsOf is err's field messages when it is an Invalid error that has
// them (a form to show again with each beside its field), else nil.
func FieldsOf(err error) map[string]string {
	var e *Error
	if errors.As(err, &e) && e.Kind == Invalid && len(e.Fields) > 0 {
		return e.Fields
	}
	return nil
}

// BadQuery makes a BadRequest error for the malformed query parameter name,
// which must be what (e.g. "a roar id").
func BadQuery(name, what string) *Error {
	return E(BadRequest, "The %s parameter must be %s.", name, what)
}

// Slow makes a TooMany error that tells the client to retry after d.
func Slow(d time.Duration, format string, args ...any) *Error {
	e := E(TooMany, format, args...)
	e.RetryAfter = d
	return e
}

// As returns the first *Error in err's chain, or an Internal error wrapping err.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Kind: Internal, Message: "Something went wrong on our side.", Err: err}
}

// KindOf is As(err).Kind for an error, and None for nil (so that a nil error
// is never taken for an Internal one).
func KindOf(err error) Kind {
	if err == nil {
		return None
	}
	return As(err).Kind
}
