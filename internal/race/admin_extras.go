package race

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
)

// The race wizard's third step (extras.go): teams, the fundraiser and the
// store's items.

func extrasOf(r *Race) ExtrasInput {
	return ExtrasInput{Teams: r.Teams, Fundraiser: r.Fundraiser, Shirts: r.Shirts}
}

func itemForm(r *http.Request) ItemInput {
	f := r.PostForm
	return ItemInput{Name: f.Get("name"), Price: f.Get("price"), Stock: f.Get("stock")}
}

func (a *App) extrasShow(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	a.Site.Render(w, r, http.StatusOK, ExtrasPage(a, d.User, d.Race, 0, extrasOf(d.Race), ItemInput{Price: "0", Stock: "100"}, nil, flash(r)))
}

func (a *App) extrasSave(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	if !a.form(w, r) {
		return
	}
	in := ExtrasInput{Teams: r.PostForm.Get("teams") == "on", Fundraiser: r.PostForm.Get("fundraiser"), Shirts: r.PostForm.Get("shirts") == "on"}
	err := a.svc.SetExtras(r.Context(), d, in)
	if f := refusal(err); f != nil {
		a.Site.Render(w, r, refusalStatus(err), ExtrasPage(a, d.User, d.Race, -1, in, ItemInput{Price: "0", Stock: "100"}, f, ""))
		return
	}
	a.extrasDone(w, r, d.User, d.Race, 0, ItemInput{}, err)
}

func (a *App) itemAdd(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	if !a.form(w, r) {
		return
	}
	in := itemForm(r)
	a.extrasDone(w, r, d.User, d.Race, 0, in, a.svc.AddItem(r.Context(), d, in))
}

func (a *App) itemSave(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	if !a.form(w, r) {
		return
	}
	id, err := pathInt(r, "iid")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	in := itemForm(r)
	a.extrasDone(w, r, d.User, d.Race, id, in, a.svc.UpdateItem(r.Context(), d, id, in))
}

func (a *App) itemDelete(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	id, err := pathInt(r, "iid")
	if err == nil {
		err = a.svc.DeleteItem(r.Context(), d, id)
	}
	a.extrasDone(w, r, d.User, d.Race, id, ItemInput{}, err)
}

// extrasDone answers an extras form: the page again with an item form's
// errors, or back to the extras.
func (a *App) extrasDone(w http.ResponseWriter, r *http.Request, u *auth.User, race *Race, id int64, in ItemInput, err error) {
	if f := refusal(err); f != nil {
		if in == (ItemInput{}) { // a deleted item's refusal: its form as it stands
			if it, ok := race.Item(id); ok {
				in = itemInput(it)
			}
		}
		a.Site.Render(w, r, refusalStatus(err), ExtrasPage(a, u, race, id, extrasOf(race), in, f, ""))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(race.Slug)+"/extras?saved=1")
}
