package race

import (
	"errors"
	"maps"
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
)

func raceInput(r *http.Request) RaceInput {
	f := r.PostForm
	return RaceInput{Name: f.Get("name"), Location: f.Get("location"), Date: f.Get("date"), TZ: f.Get("tz"),
		Description: f.Get("description"), Currency: f.Get("currency")}
}

func basicsOf(r *Race) RaceInput {
	return RaceInput{Name: r.Name, Location: r.Location, Date: r.Date, TZ: r.TZ, Description: r.Description, Currency: string(r.Currency)}
}

func (a *App) raceNew(w http.ResponseWriter, r *http.Request) {
	u, ok := auth.RequireUser(w, r)
	if !ok {
		return
	}
	a.Site.Render(w, r, http.StatusOK, NewRacePage(a, u, RaceInput{TZ: "UTC", Currency: "usd"}, nil))
}

func (a *App) raceCreate(w http.ResponseWriter, r *http.Request) {
	u, ok := auth.RequireUser(w, r)
	if !ok {
		return
	}
	// The logo may come with the basics (a multipart form).
	up, err := a.Media.ReadForm(r, "logo", LogoKind)
	defer up.Close()
	in := raceInput(r)
	var race *Race
	if err == nil {
		race, err = a.svc.CreateRaceWithLogo(r.Context(), u, in, up)
	} else if f := errs.FieldsOf(err); f != nil {
		if _, vf := in.Validate(a.Now()); len(vf) > 0 {
			maps.Copy(f, vf) // every message at once
		}
	}
	if f := refusal(err); f != nil {
		if up != nil && f["logo"] == "" {
			f["logo"] = "The picture was fine, but a returned form cannot keep it: choose it again."
		}
		a.Site.Render(w, r, refusalStatus(err), NewRacePage(a, u, in, f))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(race.Slug)+"/events")
}

// flash is the ?saved= message of a page after a redirect.
func flash(r *http.Request) string {
	switch r.URL.Query().Get("saved") {
	case "1":
		return "Saved. The race page shows it now."
	case "logo":
		return "The new logo is being prepared: the race page shows it in a moment (reload to see it here)."
	case "published":
		return "Published: runners can see the race and register."
	case "director":
		return "Co-director added."
	case "removed":
		return "Co-director removed."
	case "unpublished":
		return "Unpublished: the race is a draft again and runners no longer see it."
	case "code":
		return "Saved: runners can use the codes listed now."
	case "comment":
		return "Comment saved."
	case "cancelled":
		return "Registration cancelled; the place is free again and the payment refunded."
	case "policy":
		return "Saved: runners see the rule of changes and cancellations on their registrations from now on."
	case "closed":
		return "Registration closed: the race page says so, and nobody new can register."
	case "reopened":
		return "Registration reopened: runners can register again (within its times)."
	case "edited":
		return "Saved. The runner is told by e-mail what changed."
	}
	return ""
}

func (a *App) adminShow(w http.ResponseWriter, r *http.Request) {
	d := a.directed(w, r)
	if d == nil {
		return
	}
	u, race := d.User, d.Race
	a.renderAdmin(w, r, u, race, http.StatusOK, nil, "")
}

// renderAdmin renders the review page with form messages f, and username
// as typed in the co-director form.
func (a *App) renderAdmin(w http.ResponseWriter, r *http.Request, u *auth.User, race *Race, status int, f map[string]string, username string) {
	dirs, err := a.svc.Directors(r.Context(), race)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, status, AdminPage(a, u, race, dirs, f, username, flash(r), a.Now()))
}

func (a *App) basicsShow(w http.ResponseWriter, r *http.Request) {
	d := a.directed(w, r)
	if d == nil {
		return
	}
	u, race := d.User, d.Race
	a.Site.Render(w, r, http.StatusOK, BasicsPage(a, u, race, basicsOf(race), nil, nil, flash(r)))
}

func (a *App) basicsSave(w http.ResponseWriter, r *http.Request) {
	d := a.directed(w, r)
	if d == nil || !a.form(w, r) {
		return
	}
	u, race := d.User, d.Race
	in := raceInput(r)
	err := a.svc.UpdateBasics(r.Context(), d, in)
	if f := refusal(err); f != nil {
		a.Site.Render(w, r, refusalStatus(err), BasicsPage(a, u, race, in, nil, f, ""))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(race.Slug)+"/basics?saved=1")
}

func (a *App) textShow(w http.ResponseWriter, r *http.Request) {
	d := a.directed(w, r)
	if d == nil {
		return
	}
	u, race := d.User, d.Race
	a.Site.Render(w, r, http.StatusOK, TextPage(a, u, race, TextInput{Info: race.Info, Waiver: race.Waiver}, nil, flash(r)))
}

func (a *App) textSave(w http.ResponseWriter, r *http.Request) {
	d := a.directed(w, r)
	if d == nil || !a.form(w, r) {
		return
	}
	u, race := d.User, d.Race
	in := TextInput{Info: r.PostForm.Get("info"), Waiver: r.PostForm.Get("waiver")}
	err := a.svc.UpdateText(r.Context(), d, in)
	if f := refusal(err); f != nil {
		a.Site.Render(w, r, refusalStatus(err), TextPage(a, u, race, in, f, ""))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(race.Slug)+"/text?saved=1")
}

func (a *App) publish(w http.ResponseWriter, r *http.Request) {
	d := a.directed(w, r)
	if d == nil {
		return
	}
	u, race := d.User, d.Race
	err := a.svc.Publish(r.Context(), d)
	if e := errs.As(err); err != nil && e.Kind == errs.Conflict {
		a.renderAdmin(w, r, u, race, http.StatusConflict, map[string]string{"publish": e.Message}, "")
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(race.Slug)+"?saved=published")
}

func (a *App) directorAdd(w http.ResponseWriter, r *http.Request) {
	d := a.directed(w, r)
	if d == nil || !a.form(w, r) {
		return
	}
	u, race := d.User, d.Race
	name := r.PostForm.Get("username")
	err := a.svc.AddDirector(r.Context(), d, name)
	if f := errs.FieldsOf(err); f != nil {
		a.renderAdmin(w, r, u, race, http.StatusUnprocessableEntity, f, name)
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(race.Slug)+"?saved=director")
}

var errNoEvent = errors.New("race: no such event")
