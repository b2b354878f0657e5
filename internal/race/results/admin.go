package results

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/web"
)

// bodyLimit bounds an import's request: the file and the form around it.
const bodyLimit = MaxBytes + 64<<10

// AdminURL is the directors' page of event eventID's results.
func AdminURL(slug string, eventID int64) string {
	return races.AdminURL(slug) + "/events/" + strconv.FormatInt(eventID, 10) + "/results"
}

// resultsAdmin is an event's results for its directors: how many, whether
// runners see them, the first of them, the import form.
func (a *App) resultsAdmin(w http.ResponseWriter, r *http.Request) {
	d, e := races.EventOf(r)
	a.renderResultsAdmin(w, r, d, e, http.StatusOK, nil)
}

func (a *App) renderResultsAdmin(w http.ResponseWriter, r *http.Request, d *races.Directing, e *races.Event, status int, f map[string]string) {
	first, err := a.store.List(r.Context(), e.ID, 0, PerPage)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, status, AdminPage(a, d.User, d.Race, e, first, f, resultsFlash(r)))
}

// resultsFlash is the message of the page after an import or publishing.
func resultsFlash(r *http.Request) string {
	q := r.URL.Query()
	switch q.Get("saved") {
	case "imported":
		n, _ := strconv.Atoi(q.Get("n"))
		msg := fmt.Sprintf("Imported %s %s; they replace any before.", races.Thousands(n), races.Plural(int64(n), "result", "results"))
		if s, _ := strconv.Atoi(q.Get("skipped")); s > 0 {
			msg += fmt.Sprintf(" %s without a finish (DNF, DNS, DSQ) %s left out.", races.Plural(int64(s), "1 runner", races.Thousands(s)+" runners"), races.Plural(int64(s), "was", "were"))
		}
		return msg
	case "published":
		return "Published: runners see these results now."
	case "unpublished":
		return "Unpublished: runners no longer see these results."
	}
	return ""
}

// resultsImport takes a results file (multipart, field "file") and makes
// it the event's results; a bad file is refused whole, its problems listed
// by line and column.
func (a *App) resultsImport(w http.ResponseWriter, r *http.Request) {
	d, e := races.EventOf(r)
	tooLarge := map[string]string{"file": fmt.Sprintf("The file is larger than %d MB: split it, or leave out columns the results do not show.", MaxBytes>>20)}
	// The route bounds the body (bodyLimit), so the form is read
	// into memory whole.
	if err := web.ParseForm(r, bodyLimit); err != nil {
		if errs.KindOf(err) == errs.TooLarge {
			a.renderResultsAdmin(w, r, d, e, http.StatusRequestEntityTooLarge, tooLarge)
			return
		}
		a.Site.Error(w, r, err)
		return
	}
	file, hdr, err := r.FormFile("file")
	if err != nil {
		a.renderResultsAdmin(w, r, d, e, http.StatusUnprocessableEntity, map[string]string{"file": "Choose a CSV file to import."})
		return
	}
	defer file.Close()
	if hdr.Size > MaxBytes {
		a.renderResultsAdmin(w, r, d, e, http.StatusRequestEntityTooLarge, tooLarge)
		return
	}
	n, err := a.svc.Import(r.Context(), d, e.ID, file)
	if f := errs.FieldsOf(err); f != nil {
		a.renderResultsAdmin(w, r, d, e, http.StatusUnprocessableEntity, f)
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	http.Redirect(w, r, AdminURL(d.Race.Slug, e.ID)+"?saved=imported&n="+strconv.Itoa(n.Count)+"&skipped="+strconv.Itoa(n.Skipped), http.StatusSeeOther)
}

func (a *App) resultsPublish(w http.ResponseWriter, r *http.Request) {
	a.resultsPublishing(w, r, true)
}

func (a *App) resultsUnpublish(w http.ResponseWriter, r *http.Request) {
	a.resultsPublishing(w, r, false)
}

func (a *App) resultsPublishing(w http.ResponseWriter, r *http.Request, publish bool) {
	d, e := races.EventOf(r)
	err := a.svc.Publish(r.Context(), d, e.ID, publish)
	if e2 := errs.As(err); err != nil && e2.Kind == errs.Conflict {
		a.renderResultsAdmin(w, r, d, e, http.StatusConflict, map[string]string{"publish": e2.Message})
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	saved := "published"
	if !publish {
		saved = "unpublished"
	}
	http.Redirect(w, r, AdminURL(d.Race.Slug, e.ID)+"?saved="+saved, http.StatusSeeOther)
}
