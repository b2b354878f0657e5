package meet

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"

	"github.com/tutti-dev/tutti/internal/web"
)

var unsafeFilename = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func filename(title, ext string) string {
	s := strings.Trim(unsafeFilename.ReplaceAllString(title, "-"), "-")
	if s == "" {
		s = "poll"
	}
	return truncateRunes(s, 60) + ext
}

// pollExportCSV downloads every answer as CSV, in the viewer's zone.
func (a *App) pollExportCSV(w http.ResponseWriter, r *http.Request) {
	p, people, tfs, err := a.svc.Answers(r.Context(), r.PathValue("id"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	_, loc := a.zone(w, r, p)
	var buf bytes.Buffer
	if err := WriteCSV(&buf, p, people, tfs, loc); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+filename(p.Title, ".csv")+`"`)
	h.Set("Cache-Control", "no-cache")
	web.WriteBody(w, r, http.StatusOK, buf.Bytes())
}

// pollEventICS downloads the chosen time of a closed poll for calendars.
func (a *App) pollEventICS(w http.ResponseWriter, r *http.Request) {
	p, start, end, err := a.svc.Decision(r.Context(), r.PathValue("id"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	base := a.BaseURL
	if base == "" {
		scheme := "http"
		if web.IsHTTPS(r) {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	// Rendered whole before the status is written: a failure is a 500,
	// never a 200 with an empty calendar.
	b, err := EventICS(p, start, end, base+pollURL(p), a.Now())
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/calendar; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+filename(p.Title, ".ics")+`"`)
	h.Set("Cache-Control", "no-cache")
	web.WriteBody(w, r, http.StatusOK, b)
}
