package web

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
)

// ParseForm parses a url-encoded or multipart form within the body limit,
// returning a TooLarge error past it and an Invalid one for a malformed body.
func ParseForm(r *http.Request, maxMemory int64) error {
	var err error
	if ct := r.Header.Get("Content-Type"); len(ct) >= 19 && ct[:19] == "multipart/form-data" {
		err = r.ParseMultipartForm(maxMemory)
	} else {
		err = r.ParseForm()
	}
	if err == nil {
		return nil
	}
	if e := asError(err); e.Kind == errs.TooLarge {
		return e
	}
	return errs.E(errs.Invalid, "The form could not be read.")
}
