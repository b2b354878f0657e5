package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/tutti-dev/tutti/internal/errs"
)

// JSON writes v as a JSON response with status (not cached unless the
// handler set Cache-Control).
func JSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "could not encode the response", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-store")
	}
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// DecodeJSON reads one JSON object from the body into dst, strictly: unknown
// fields, trailing data, a wrong type or a body past the limit are the
// client's errors (422 naming the field, or 413), never a 500.
func DecodeJSON(r *http.Request, dst any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return errs.E(errs.Invalid, "Send the body as application/json.")
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil && dec.Decode(&struct{}{}) != io.EOF {
		return errs.E(errs.Invalid, "The body must hold one JSON object and nothing after it.")
	}
	if err == nil {
		return nil
	}
	var mbe *http.MaxBytesError
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &mbe):
		return errs.E(errs.TooLarge, "The request is too large.")
	case errors.As(err, &te) && te.Field != "":
		return errs.Fields(map[string]string{te.Field: "Has the wrong type: want " + te.Type.String() + "."})
	case errors.As(err, &se), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errs.E(errs.Invalid, "The body is not valid JSON.")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return errs.Fields(map[string]string{f: "Unknown field."})
	}
	return errs.E(errs.Invalid, "The body could not be read as JSON.")
}
