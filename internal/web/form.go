package web

import (
	"mime"
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
)

const (
	multipartForm  = "multipart/form-data"
	urlencodedForm = "application/x-www-form-urlencoded"
)

// formType is the encoding of r's form: multipart or url-encoded (also a
// request with no body and no type). A body of any other type, or of none
// named, is a BadRequest: net/http reads it as an empty form, which would
// save empty fields.
func formType(r *http.Request) (string, error) {
	v := r.Header.Get("Content-Type")
	if v == "" && r.ContentLength == 0 {
		return urlencodedForm, nil
	}
	if ct, _, err := mime.ParseMediaType(v); err == nil && (ct == multipartForm || ct == urlencodedForm) {
		return ct, nil
	}
	return "", errs.E(errs.BadRequest, "The form could not be read: send it as a form.")
}

// ParseForm parses a url-encoded or multipart form within the body limit,
// returning a TooLarge error past it, an Invalid one for a malformed body
// and a BadRequest one for a body that is not a form.
func ParseForm(r *http.Request, maxMemory int64) error {
	ct, err := formType(r)
	if err != nil {
		return err
	}
	if ct == multipartForm {
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
