package race

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/text"
)

func eventForm(r *http.Request) EventInput {
	f := r.PostForm
	return EventInput{Name: f.Get("name"), StartTime: f.Get("start_time"), OpensDate: f.Get("opens_date"),
		OpensTime: f.Get("opens_time"), ClosesDate: f.Get("closes_date"), ClosesTime: f.Get("closes_time"),
		Price: f.Get("price"), Cap: f.Get("cap"), Lottery: f.Get("lottery") == "on", DrawDate: f.Get("draw_date"), DrawTime: f.Get("draw_time")}
}

// newEventInput is the add form's defaults: registration open from now to
// the day before the race.
func (a *App) newEventInput(race *Race) EventInput {
	loc := race.Loc()
	now := a.Now().In(loc)
	return EventInput{StartTime: "09:00", OpensDate: now.Format("2006-01-02"), OpensTime: now.Format("15:04"),
		ClosesDate: race.Date, ClosesTime: "00:00", Price: "0", Cap: "500"}
}

func (a *App) eventsShow(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	u, race := d.User, d.Race
	a.Site.Render(w, r, http.StatusOK, EventsPage(a, u, race, 0, a.newEventInput(race), nil, flash(r)))
}

func (a *App) eventAdd(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	if !a.form(w, r) {
		return
	}
	u, race := d.User, d.Race
	in := eventForm(r)
	err := a.svc.AddEvent(r.Context(), d, in)
	a.eventDone(w, r, u, race, 0, in, err)
}

func (a *App) eventSave(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	if !a.form(w, r) {
		return
	}
	u, race := d.User, d.Race
	id, err := pathInt(r, "eid")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	in := eventForm(r)
	err = a.svc.UpdateEvent(r.Context(), d, id, in)
	a.eventDone(w, r, u, race, id, in, err)
}

// eventDone answers an event form: the page again with the form's errors,
// or back to the events.
func (a *App) eventDone(w http.ResponseWriter, r *http.Request, u *auth.User, race *Race, id int64, in EventInput, err error) {
	if f := refusal(err); f != nil {
		a.Site.Render(w, r, refusalStatus(err), EventsPage(a, u, race, id, in, f, ""))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(race.Slug)+"/events?saved=1")
}

func (a *App) eventDelete(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	id, err := pathInt(r, "eid")
	if err == nil {
		err = a.svc.DeleteEvent(r.Context(), d, id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(d.Race.Slug)+"/events?saved=1")
}

// entrantsPage is how many registrants a page lists.
const entrantsPage = 50

// directedEvent is the directed race and its {eid} event; nil after
// answering otherwise.
func (a *App) directedEvent(w http.ResponseWriter, r *http.Request) (*Directing, *Event) {
	d := directedOf(r)
	id, err := pathInt(r, "eid")
	e, found := d.Race.Event(id)
	if err != nil || !found {
		a.Site.Error(w, r, errs.ErrNotFound)
		return nil, nil
	}
	return d, e
}

func (a *App) entrantsShow(w http.ResponseWriter, r *http.Request) {
	d, e := a.directedEvent(w, r)
	if d == nil {
		return
	}
	q := text.Query(r.URL.Query().Get("q"))
	regs, next, err := a.entrantsList(r, e.ID, q)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, http.StatusOK, EntrantsPage(a, d.User, d.Race, e, regs, q, next, flash(r)))
}

// entrantsList is a page of event's registrations matching q (a name's
// start or a bib), from the request's ?after=, and the next page's query.
func (a *App) entrantsList(r *http.Request, eventID int64, q string) ([]Registration, string, error) {
	after, _ := strconv.Atoi(r.URL.Query().Get("after"))
	regs, err := a.store.Entrants(r.Context(), eventID, q, max(after, 0), entrantsPage+1)
	if err != nil || len(regs) <= entrantsPage {
		return regs, "", err
	}
	regs = regs[:entrantsPage]
	v := url.Values{"after": {strconv.Itoa(regs[len(regs)-1].Bib)}}
	if q != "" {
		v.Set("q", q)
	}
	return regs, "?" + v.Encode(), nil
}

// entrantsCSV exports every registration of the event, cancelled ones
// too, with each cell defused against formula injection.
func (a *App) entrantsCSV(w http.ResponseWriter, r *http.Request) {
	d, e := a.directedEvent(w, r)
	if d == nil {
		return
	}
	regs, err := a.store.AllEntrants(r.Context(), e.ID)
	var lines map[string][]Line
	if err == nil && len(d.Race.Items) > 0 {
		lines, err = a.store.EventLines(r.Context(), e.ID)
	}
	var teams map[int64]string
	if err == nil && d.Race.Teams {
		teams, err = a.store.TeamNames(r.Context(), d.Race.ID)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+d.Race.Slug+"-"+strconv.FormatInt(e.ID, 10)+`-registrants.csv"`)
	h.Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	// The money columns name their currency: a cell holds the number alone,
	// for a spreadsheet to add up.
	cur := d.Race.Currency.Code()
	cw.Write([]string{"bib", "first_name", "last_name", "email", "birth_date", "category", "city", "emergency_contact",
		"team", "shirt", "donation_" + cur, "store_items", "amount_" + cur, "status", "registered_at", "registration"})
	for _, g := range regs {
		cells := []string{strconv.Itoa(g.Bib), g.FirstName, g.LastName, g.Email, g.BirthDate, g.Gender, g.City, g.Emergency,
			teams[g.TeamID], g.Shirt, checkout.Of(g.Donation, d.Race.Currency).Decimal(), linesText(lines[g.HoldID]), checkout.Of(g.Amount, d.Race.Currency).Decimal(), g.Status,
			g.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), strconv.FormatInt(g.ID, 10)}
		for i := range cells {
			cells[i] = text.CSVCell(cells[i])
		}
		cw.Write(cells)
	}
	cw.Flush()
}

// linesText is store lines as one cell: "2 × Race shirt; 1 × Pasta dinner".
func linesText(ls []Line) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = strconv.Itoa(l.Qty) + " × " + l.Name
	}
	return strings.Join(parts, "; ")
}

// registrationCancelShow asks before a cancellation, saying what it does
// (the refund's amount); the POST does it.
func (a *App) registrationCancelShow(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	id, err := pathInt(r, "rid")
	var p CancelPreview
	if err == nil {
		p, err = a.svc.PreviewCancel(r.Context(), d, id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, http.StatusOK, CancelConfirmPage(a, d.User, d.Race, p))
}

func (a *App) registrationCancel(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	id, err := pathInt(r, "rid")
	var reg Registration
	if err == nil {
		reg, err = a.svc.Cancel(r.Context(), d, id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(d.Race.Slug)+"/events/"+strconv.FormatInt(reg.EventID, 10)+"/entrants?saved=cancelled")
}
