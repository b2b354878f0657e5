package meet

import (
	"net/http"
	"strings"

	"github.com/tutti-dev/tutti/internal/web"
)

// myPollsCookie remembers, in this browser only, the polls it created: their
// ids and admin tokens. Polls are unguessable, so there is no public index.
const myPollsCookie = "meet_mine"

const maxMyPolls = 30

type myPoll struct{ ID, Token string }

func myPolls(r *http.Request) []myPoll {
	c, err := r.Cookie(myPollsCookie)
	if err != nil {
		return nil
	}
	var out []myPoll
	for _, e := range strings.Split(c.Value, "|") {
		id, tok, ok := strings.Cut(e, ":")
		if ok && validID(id) && tok != "" {
			out = append(out, myPoll{id, tok})
		}
	}
	return out
}

func setMyPolls(w http.ResponseWriter, r *http.Request, polls []myPoll) {
	if len(polls) > maxMyPolls {
		polls = polls[:maxMyPolls]
	}
	parts := make([]string, len(polls))
	for i, p := range polls {
		parts[i] = p.ID + ":" + p.Token
	}
	http.SetCookie(w, &http.Cookie{Name: myPollsCookie, Value: strings.Join(parts, "|"), Path: "/meet/",
		MaxAge: 400 * 86400, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: web.IsHTTPS(r)})
}

func rememberPoll(w http.ResponseWriter, r *http.Request, p *Poll) {
	setMyPolls(w, r, append([]myPoll{{p.ID, p.AdminToken}}, forgetPoll(myPolls(r), p.ID)...))
}

func forgetPoll(polls []myPoll, id string) []myPoll {
	out := polls[:0:0]
	for _, m := range polls {
		if m.ID != id {
			out = append(out, m)
		}
	}
	return out
}

// pollList is the entry page: the polls this browser organizes, with show,
// edit and delete, and "New poll".
func (a *App) pollList(w http.ResponseWriter, r *http.Request) {
	mine := myPolls(r)
	keys := make([]AdminKey, len(mine))
	for i, m := range mine {
		keys[i] = AdminKey{Poll: m.ID, Token: m.Token}
	}
	own, err := a.svc.Organized(r.Context(), keys)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, http.StatusOK, PollListPage(a, own))
}
