package race

import (
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/errs"
)

// The runner's extras pages (extras.go): team, donation, store. Each is
// shown only when the race offers it, and answered like the other pages
// of a held entry: a form, POST, redirect to the next page.

func (a *App) teamShow(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || a.moved(w, r, en.Race, en.Hold, stepTeam) {
		return
	}
	a.teamPage(w, r, en, http.StatusOK, en.Hold.TeamName, nil)
}

func (a *App) teamPage(w http.ResponseWriter, r *http.Request, en *Entry, status int, name string, fe map[string]string) {
	if !en.Race.Teams {
		a.redirect(w, r, a.stepURL(en.Race, en.Hold))
		return
	}
	teams, err := a.svc.Teams(r.Context(), en.Race)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, status, TeamPage(a, en.User, en.Race, en.Event, en.Hold, teams, name, fe, a.Now()))
}

func (a *App) teamSave(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || !a.form(w, r) {
		return
	}
	name := r.PostForm.Get("team")
	err := a.svc.SaveTeam(r.Context(), en, name)
	if fe := errs.FieldsOf(err); fe != nil {
		a.teamPage(w, r, en, http.StatusUnprocessableEntity, name, fe)
		return
	}
	a.saved(w, r, en, stepTeam, err)
}

// saved answers the save of page step: the next page, or the error.
func (a *App) saved(w http.ResponseWriter, r *http.Request, en *Entry, step int, err error) {
	if err != nil {
		a.wizardErr(w, r, en.Race, en.Hold, err)
		return
	}
	a.redirect(w, r, entryURL(en.Race.Slug, en.Hold.ID)+"/"+en.Race.nextPage(step))
}

func (a *App) donationShow(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || a.moved(w, r, en.Race, en.Hold, stepDonation) {
		return
	}
	choice, other := "0", ""
	if d := en.Hold.Donation; d > 0 {
		choice = "other"
		other = checkout.Of(d, en.Race.Currency).Decimal()
		for _, c := range DonationChoices {
			if c == d {
				choice, other = strconv.FormatInt(d, 10), ""
			}
		}
	}
	a.donationPage(w, r, en, http.StatusOK, choice, other, nil)
}

func (a *App) donationPage(w http.ResponseWriter, r *http.Request, en *Entry, status int, choice, other string, fe map[string]string) {
	if en.Race.Fundraiser == "" {
		a.redirect(w, r, a.stepURL(en.Race, en.Hold))
		return
	}
	a.Site.Render(w, r, status, DonationPage(a, en.User, en.Race, en.Event, en.Hold, choice, other, fe, a.Now()))
}

func (a *App) donationSave(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || !a.form(w, r) {
		return
	}
	choice, other := r.PostForm.Get("amount"), r.PostForm.Get("other")
	if choice == "" && other != "" { // typed an amount, ticked nothing
		choice = "other"
	}
	err := a.svc.SaveDonation(r.Context(), en, choice, other)
	if fe := errs.FieldsOf(err); fe != nil {
		a.donationPage(w, r, en, http.StatusUnprocessableEntity, choice, other, fe)
		return
	}
	a.saved(w, r, en, stepDonation, err)
}

func (a *App) storeShow(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || a.moved(w, r, en.Race, en.Hold, stepStore) || !a.lines(w, r, en) {
		return
	}
	qty := map[int64]string{}
	for _, l := range en.Hold.Lines {
		qty[l.ItemID] = strconv.Itoa(l.Qty)
	}
	a.storePage(w, r, en, http.StatusOK, qty, nil)
}

func (a *App) storePage(w http.ResponseWriter, r *http.Request, en *Entry, status int, qty map[int64]string, fe map[string]string) {
	if len(en.Race.Items) == 0 {
		a.redirect(w, r, a.stepURL(en.Race, en.Hold))
		return
	}
	a.Site.Render(w, r, status, StorePage(a, en.User, en.Race, en.Event, en.Hold, qty, fe, a.Now()))
}

func (a *App) storeSave(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || !a.form(w, r) {
		return
	}
	err := a.svc.SaveStore(r.Context(), en, r.PostForm.Get)
	if fe := errs.FieldsOf(err); fe != nil {
		qty := map[int64]string{}
		for _, it := range en.Race.Items {
			qty[it.ID] = r.PostForm.Get("qty-" + strconv.FormatInt(it.ID, 10))
		}
		if fresh, ferr := a.svc.Race(r.Context(), en.Race.Slug); ferr == nil {
			en.Race = fresh // what is left now
		}
		a.storePage(w, r, en, http.StatusUnprocessableEntity, qty, fe)
		return
	}
	a.saved(w, r, en, stepStore, err)
}
