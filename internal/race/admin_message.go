package race

import (
	"crypto/rand"
	"errors"
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/text"
)

// A director's message to an event's registrants (service_message.go):
// the form, then a page that asks first saying how many mails it sends,
// then the sending, once however often its button is pressed.

func messageURL(slug string, ev int64) string {
	return adminURL(slug) + "/events/" + strconv.FormatInt(ev, 10) + "/message"
}

func (a *App) messageShow(w http.ResponseWriter, r *http.Request) {
	d, e := a.directedEvent(w, r)
	if d == nil {
		return
	}
	a.renderMessage(w, r, d, e, http.StatusOK, MessageInput{}, nil, sentFlash(r))
}

// renderMessage is the message page with status: the form (in as typed,
// fs its refusals), flash, and the messages sent before.
func (a *App) renderMessage(w http.ResponseWriter, r *http.Request, d *Directing, e *Event, status int, in MessageInput, fs map[string]string, flash string) {
	sent, err := a.svc.Messages(r.Context(), d, e.ID)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, status, MessagePage(a, d.User, d.Race, e, in, fs, flash, sent))
}

// sentFlash is what the message page says after a sending (?sent=).
func sentFlash(r *http.Request) string {
	switch v := r.URL.Query().Get("sent"); v {
	case "":
		return ""
	case "again":
		return "This message was sent already: it was not sent a second time."
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return ""
		}
		return "Sent to " + thousands(n) + " " + plural(int64(n), "registrant", "registrants") +
			": the mails go out at the site's sending rate, and each runner sees the message on their registrations page."
	}
}

// messagePost is the form's three steps: the message (checked) to the page
// that asks first; "Change the message" back to the form; the confirmed
// sending, under its send key (one sending per key: db.WithRequestKey).
func (a *App) messagePost(w http.ResponseWriter, r *http.Request) {
	d, e := a.directedEvent(w, r)
	if d == nil || !a.form(w, r) {
		return
	}
	f := r.PostForm
	in := MessageInput{Subject: f.Get("subject"), Body: f.Get("body")}
	if f.Get("edit") != "" {
		a.renderMessage(w, r, d, e, http.StatusOK, in, nil, "")
		return
	}
	if f.Get("confirm") == "" {
		m, n, err := a.svc.PreviewMessage(r.Context(), d, e.ID, in)
		if fs := refusal(err); fs != nil {
			a.renderMessage(w, r, d, e, refusalStatus(err), in, fs, "")
			return
		}
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		a.Site.Render(w, r, http.StatusOK, MessageConfirmPage(a, d.User, d.Race, e, m, n, rand.Text()))
		return
	}
	key := f.Get("key")
	if !text.IsToken(key) || len(key) > 64 {
		a.Site.Error(w, r, errs.E(errs.Invalid, "This form is incomplete: write the message again."))
		return
	}
	n, err := a.svc.WriteToRegistrants(db.WithRequestKey(r.Context(), "race-message:"+key), d, e.ID, in)
	switch fs := refusal(err); {
	case errors.Is(err, errs.ErrRepeated):
		a.redirect(w, r, messageURL(d.Race.Slug, e.ID)+"?sent=again")
	case fs != nil:
		a.renderMessage(w, r, d, e, refusalStatus(err), in, fs, "")
	case err != nil:
		a.Site.Error(w, r, err)
	default:
		a.redirect(w, r, messageURL(d.Race.Slug, e.ID)+"?sent="+strconv.Itoa(n))
	}
}
