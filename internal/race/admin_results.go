package race

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// resultsBodyLimit bounds an import's request: the file and the form
// around it.
const resultsBodyLimit = MaxResultsBytes + 64<<10

func resultsAdminURL(slug string, eventID int64) string {
	return adminURL(slug) + "/events/" + strconv.FormatInt(eventID, 10) + "/results"
}

// resultsAdmin is an event's results for its directors: how many, whether
// runners see them, the first of them, the import form.
func (a *App) resultsAdmin(w http.ResponseWriter, r *http.Request) {
	d, e := a.directedEvent(w, r)
	if d == nil {
		return
	}
	a.renderResultsAdmin(w, r, d, e, http.StatusOK, nil)
}

func (a *App) renderResultsAdmin(w http.ResponseWriter, r *http.Request, d *Directing, e *Event, status int, f map[string]string) {
	first, err := a.store.Results(r.Context(), e.ID, 0, ResultsPerPage)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, status, ResultsAdminPage(a, d.User, d.Race, e, first, f, resultsFlash(r)))
}

// resultsFlash is the message of the page after an import or publishing.
func resultsFlash(r *http.Request) string {
	q := r.URL.Query()
	switch q.Get("saved") {
	case "imported":
		n, _ := strconv.Atoi(q.Get("n"))
		msg := fmt.Sprintf("Imported %s %s; they replace any before.", thousands(n), plural(int64(n), "result", "results"))
		if s, _ := strconv.Atoi(q.Get("skipped")); s > 0 {
			msg += fmt.Sprintf(" %s without a finish (DNF, DNS, DSQ) %s left out.", plural(int64(s), "1 runner", thousands(s)+" runners"), plural(int64(s), "was", "were"))
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
	d, e := a.directedEvent(w, r)
	if d == nil {
		return
	}
	tooLarge := map[string]string{"file": fmt.Sprintf("The file is larger than %d MB: split it, or leave out columns the results do not show.", MaxResultsBytes>>20)}
	// The route bounds the body (resultsBodyLimit), so the form is read
	// into memory whole.
	if err := web.ParseForm(r, resultsBodyLimit); err != nil {
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
	if hdr.Size > MaxResultsBytes {
		a.renderResultsAdmin(w, r, d, e, http.StatusRequestEntityTooLarge, tooLarge)
		return
	}
	n, err := a.svc.ImportResults(r.Context(), d, e.ID, file)
	if f := errs.FieldsOf(err); f != nil {
		a.renderResultsAdmin(w, r, d, e, http.StatusUnprocessableEntity, f)
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, resultsAdminURL(d.Race.Slug, e.ID)+"?saved=imported&n="+strconv.Itoa(n.Count)+"&skipped="+strconv.Itoa(n.Skipped))
}

func (a *App) resultsPublish(w http.ResponseWriter, r *http.Request) {
	a.resultsPublishing(w, r, true)
}

func (a *App) resultsUnpublish(w http.ResponseWriter, r *http.Request) {
	a.resultsPublishing(w, r, false)
}

func (a *App) resultsPublishing(w http.ResponseWriter, r *http.Request, publish bool) {
	d, e := a.directedEvent(w, r)
	if d == nil {
		return
	}
	err := a.svc.PublishResults(r.Context(), d, e.ID, publish)
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
	a.redirect(w, r, resultsAdminURL(d.Race.Slug, e.ID)+"?saved="+saved)
}
