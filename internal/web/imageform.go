package web

import (
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
)

// A form with a picture (a race's logo, an account's avatar) is read as a
// stream, part by part: its text fields into the request's PostForm, the
// picture into memory up to files.MaxImageBytes. A larger picture (a phone's
// photo of 30 MB) is read past and dropped, and the form is answered again
// with a message beside the field and every other field kept, never with a
// bare 413 page. Its route's body limit (files.ImageFormBody) leaves room for
// that.

// maxImageFieldBytes and maxImageFieldsBytes bound a picture form's text
// fields.
const (
	maxImageFieldBytes  = 64 << 10
	maxImageFieldsBytes = 1 << 20
)

// ReadImageForm reads r's multipart form: its text fields into r.PostForm
// (and r.Form), and the file sent as field, returned (nil when none was
// chosen). A file over files.MaxImageBytes, or a body past the route's limit, is
// a field error (field: files.TooLargeMessage) with the fields read kept in
// r.PostForm; a body that is not a form is a BadRequest (formType), a
// malformed one Invalid. A url-encoded form (no file) is read as such.
func ReadImageForm(r *http.Request, field string) ([]byte, error) {
	ct, err := formType(r)
	if err != nil {
		return nil, err
	}
	if ct != multipartForm {
		if err := r.ParseForm(); err != nil {
			return nil, formError(err, field)
		}
		return nil, nil
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, errs.E(errs.Invalid, "The form could not be read.")
	}
	vals := url.Values{}
	r.PostForm, r.Form = vals, vals
	var img []byte
	var tooLarge bool
	budget := int64(maxImageFieldsBytes)
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, formError(err, field)
		}
		name := p.FormName()
		switch {
		case name == "":
		case p.FileName() != "" && name == field:
			b, err := io.ReadAll(io.LimitReader(p, files.MaxImageBytes+1))
			if err != nil {
				return nil, formError(err, field)
			}
			if int64(len(b)) > files.MaxImageBytes {
				tooLarge, img = true, nil
				if _, err := io.Copy(io.Discard, p); err != nil {
					return nil, formError(err, field)
				}
			} else if len(b) > 0 && !tooLarge {
				img = b
			}
		case p.FileName() != "": // another file: not this form's
			if _, err := io.Copy(io.Discard, p); err != nil {
				return nil, formError(err, field)
			}
		default:
			b, err := io.ReadAll(io.LimitReader(p, min(maxImageFieldBytes, budget)+1))
			if err != nil {
				return nil, formError(err, field)
			}
			if int64(len(b)) > min(maxImageFieldBytes, budget) {
				return nil, errs.E(errs.TooLarge, "The form is too large.")
			}
			budget -= int64(len(b))
			vals.Add(name, string(b))
		}
		p.Close()
	}
	if tooLarge {
		return nil, errs.Fields(map[string]string{field: files.TooLargeMessage})
	}
	return img, nil
}

// formError is a read error of a picture form: past the body limit, the
// picture's field error; else the form could not be read.
func formError(err error, field string) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errs.Fields(map[string]string{field: files.TooLargeMessage})
	}
	return errs.E(errs.Invalid, "The form could not be read.")
}
