package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Back is where a form posted without JavaScript returns to: the page it
// was on (the same site's Referer, under home), else home (an app's front
// page, "/roar/").
func Back(r *http.Request, home string) string {
	if ref := SameSiteReferer(r); strings.HasPrefix(ref, home) {
		return ref
	}
	return home
}

// Done answers a form's success: v as JSON for a script, else a 303 back
// to the page the form was on (Back).
func Done(w http.ResponseWriter, r *http.Request, home string, v any) {
	if WantsJSON(r) {
		JSON(w, http.StatusOK, v)
		return
	}
	http.Redirect(w, r, Back(r, home), http.StatusSeeOther)
}

// QueryID reads a positive id from the query parameter name (0 when it is
// absent or empty); anything else is a 400 naming the parameter.
func QueryID(r *http.Request, name string) (int64, error) {
	if r.URL.RawQuery == "" { // the common case, parsed for free
		return 0, nil
	}
	s := r.URL.Query().Get(name)
	if s == "" {
		return 0, nil
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 0 {
		return 0, errs.BadQuery(name, "an id (a positive whole number)")
	}
	return id, nil
}
