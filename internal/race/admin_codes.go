package race

import "net/http"

// The directors' codes page (codes.go).

func codeForm(r *http.Request) CodeInput {
	f := r.PostForm
	return CodeInput{Code: f.Get("code"), Percent: f.Get("percent"), MaxUses: f.Get("max_uses"), Early: f.Get("early") == "on"}
}

func (a *App) codesShow(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	a.codesPage(w, r, d, http.StatusOK, CodeInput{}, nil, flash(r))
}

func (a *App) codesPage(w http.ResponseWriter, r *http.Request, d *Directing, status int, in CodeInput, fe map[string]string, msg string) {
	codes, err := a.svc.Codes(r.Context(), d)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, status, CodesPage(a, d.User, d.Race, codes, in, fe, msg))
}

func (a *App) codeAdd(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	if !a.form(w, r) {
		return
	}
	in := codeForm(r)
	err := a.svc.AddCode(r.Context(), d, in)
	if fe := refusal(err); fe != nil {
		a.codesPage(w, r, d, refusalStatus(err), in, fe, "")
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(d.Race.Slug)+"/codes?saved=code")
}

func (a *App) codeDelete(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	id, err := pathInt(r, "cid")
	if err == nil {
		err = a.svc.DeleteCode(r.Context(), d, id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(d.Race.Slug)+"/codes?saved=code")
}
