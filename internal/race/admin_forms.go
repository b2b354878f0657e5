package race

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// A director's form that is refused comes back with everything typed and
// the reason: a field's message beside the field, a refusal of the whole
// form (a limit reached, a name taken) under the key "form" at its top.
// Only errors nobody can fix on the form go to the error page.

// refusal is err as the messages of a form to show again; nil for an
// error that is not the form's (answered by the error page).
func refusal(err error) map[string]string {
	if f := errs.FieldsOf(err); f != nil {
		return f
	}
	if e := errs.As(err); e != nil && (e.Kind == errs.Conflict || e.Kind == errs.Invalid) && e.Message != "" {
		return map[string]string{"form": e.Message}
	}
	return nil
}

// refusalStatus is the status of a form shown again for err: 409 for a
// conflict, else 422.
func refusalStatus(err error) int {
	if e := errs.As(err); e != nil && e.Kind == errs.Conflict {
		return http.StatusConflict
	}
	return http.StatusUnprocessableEntity
}

// eventRefused is an event form's messages as the top of the events page
// lists them, each linking to its field (inputs ids prefixed by id).
func eventRefused(errs map[string]string, id string) []web.FieldLink {
	return web.Refused(errs,
		[3]string{"form", id + "name", "Event"},
		[3]string{"name", id + "name", "Event name"},
		[3]string{"start_time", id + "start", "Start time"},
		[3]string{"opens", id + "opens", "Registration opens"},
		[3]string{"closes", id + "closes", "Registration closes"},
		[3]string{"price", id + "price", "Price"},
		[3]string{"cap", id + "cap", "Places"},
		[3]string{"draw", id + "draw", "Draw"})
}

// storeRefused is the store page's messages, each by its item's name.
func storeRefused(r *Race, errs map[string]string) []web.FieldLink {
	fs := make([][3]string, len(r.Items))
	for i, it := range r.Items {
		id := "qty-" + i64(it.ID)
		fs[i] = [3]string{id, id, it.Name}
	}
	return web.Refused(errs, fs...)
}
