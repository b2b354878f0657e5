package web

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/errs"
)

// A form is read from a url-encoded or multipart body (or a body that
// names no type); a body of another type is refused, not read as an empty
// form whose empty fields a handler would save. (A form with a file,
// read by media.ReadForm, follows the same rule: its own test.)
func TestParseFormRefusesABodyThatIsNotAForm(t *testing.T) {
	for _, tc := range []struct {
		ctype string
		want  errs.Kind
		name  string // display_name read
	}{
		{"application/x-www-form-urlencoded", errs.None, "Erin"},
		{"application/x-www-form-urlencoded; charset=utf-8", errs.None, "Erin"},
		{"", errs.BadRequest, ""}, // read as empty by net/http: it would save empty fields
		{"application/octet-stream", errs.BadRequest, ""},
		{"text/plain", errs.BadRequest, ""},
		{"application/json", errs.BadRequest, ""},
		{"multipart/form-data", errs.Invalid, ""}, // no boundary
	} {
		r := httptest.NewRequest("POST", "/account/settings", strings.NewReader("display_name=Erin"))
		if tc.ctype != "" {
			r.Header.Set("Content-Type", tc.ctype)
		}
		err := ParseForm(r, 1<<20)
		if got := errs.KindOf(err); got != tc.want {
			t.Errorf("%q: %v (%v); want kind %v", tc.ctype, got, err, tc.want)
		}
		if err == nil && r.PostForm.Get("display_name") != tc.name {
			t.Errorf("%q: display_name %q; want %q", tc.ctype, r.PostForm.Get("display_name"), tc.name)
		}
	}
	// With no body, no type is no fault: an empty form.
	r := httptest.NewRequest("POST", "/account/settings", nil)
	if err := ParseForm(r, 1<<20); err != nil || len(r.PostForm) != 0 {
		t.Errorf("no body: %v, %v; want an empty form", err, r.PostForm)
	}
}
