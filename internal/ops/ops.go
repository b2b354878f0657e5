// Package ops is the site's operators' pages: the background jobs (counts,
// dead jobs with their last error, a retry button) and, when no SMTP server
// is configured, the mail written to DATA-DIR/mail. Operators are users
// listed in the operators table (`tutti operator add USERNAME`), a role apart
// from roar's moderators, since the mail shown here holds sign-in links.
//
// Apps do not import it: their jobs and mail appear here because they go
// through internal/jobs and internal/mail.
package ops

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/mail"
	"github.com/tutti-dev/tutti/internal/web"
)

//go:embed migrations
var migrations embed.FS

// Migrations create the operators table (after auth's: it refers to users).
var Migrations = db.EmbeddedMigrations("ops", migrations)

// Deps are the core services the pages show.
type Deps struct {
	DB   *db.DB
	Site *web.Site
	Jobs *jobs.Queue
	Mail *mail.Mailer
}

// Ops serves the operators' pages.
type Ops struct{ Deps }

// New builds the pages.
func New(d Deps) *Ops { return &Ops{d} }

// IsOperator reports whether the user is one of the site's operators.
func IsOperator(ctx context.Context, d *db.DB, userID int64) (bool, error) {
	var n int
	if err := db.Scan(d.QueryRow(ctx, "SELECT COUNT(*) FROM operators WHERE user_id = ?", userID), &n); err != nil {
		return false, fmt.Errorf("ops: operator: %w", err)
	}
	return n > 0, nil
}

// SetOperator grants (on) or revokes the operator role.
func SetOperator(ctx context.Context, d *db.DB, userID int64, on bool) error {
	var err error
	if !on {
		_, err = d.Exec(ctx, "DELETE FROM operators WHERE user_id = ?", userID)
	} else {
		_, err = d.Exec(ctx, "INSERT INTO operators (user_id, created_at) VALUES (?, ?)", userID, time.Now().Unix())
		if errors.Is(err, errs.ErrConflict) {
			err = nil // already one
		}
	}
	if err != nil {
		return fmt.Errorf("ops: set operator: %w", err)
	}
	return nil
}

// Routes mounts the pages under /ops/.
func (o *Ops) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /ops/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ops/jobs", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /ops/jobs", o.jobsShow)
	mux.HandleFunc("POST /ops/jobs/{id}/retry", o.jobRetry)
	mux.HandleFunc("GET /ops/mail", o.mailList)
	mux.HandleFunc("GET /ops/mail/{name}", o.mailShow)
}

// require lets operators through; others get a 403, visitors the login.
func (o *Ops) require(w http.ResponseWriter, r *http.Request) (web.Head, bool) {
	u, ok := auth.RequireUser(w, r)
	if !ok {
		return web.Head{}, false
	}
	is, err := IsOperator(r.Context(), o.DB, u.ID)
	if err != nil {
		o.Site.Error(w, r, err)
		return web.Head{}, false
	}
	if !is {
		o.Site.Error(w, r, errs.E(errs.Forbidden, "Only the site's operators may see this page."))
		return web.Head{}, false
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	return web.Head{App: "/ops/", User: u.Username}, true
}

func (o *Ops) jobsShow(w http.ResponseWriter, r *http.Request) {
	h, ok := o.require(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	c, err := o.Jobs.Counts(ctx)
	if err != nil {
		o.Site.Error(w, r, err)
		return
	}
	dead, err := o.Jobs.List(ctx, jobs.Dead, 100)
	if err != nil {
		o.Site.Error(w, r, err)
		return
	}
	pending, err := o.Jobs.List(ctx, jobs.Ready, 20)
	if err != nil {
		o.Site.Error(w, r, err)
		return
	}
	flash := ""
	if id := r.URL.Query().Get("retried"); id != "" {
		flash = "Job " + id + " is queued again."
	}
	h.Title = "Jobs"
	o.Site.Render(w, r, http.StatusOK, JobsPage(o.Site, h, c, dead, pending, flash))
}

func (o *Ops) jobRetry(w http.ResponseWriter, r *http.Request) {
	if _, ok := o.require(w, r); !ok {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		o.Site.NotFound(w, r)
		return
	}
	if err := o.Jobs.Retry(r.Context(), id); err != nil {
		if errors.Is(err, errs.ErrNotFound) {
			o.Site.Error(w, r, errs.E(errs.NotFound, "There is no dead job %d (retried already?).", id))
			return
		}
		o.Site.Error(w, r, err)
		return
	}
	http.Redirect(w, r, "/ops/jobs?retried="+strconv.FormatInt(id, 10), http.StatusSeeOther)
}

func (o *Ops) mailList(w http.ResponseWriter, r *http.Request) {
	h, ok := o.require(w, r)
	if !ok {
		return
	}
	var list []mail.Stored
	if !o.Mail.SMTP() {
		var err error
		if list, err = o.Mail.List(200); err != nil {
			o.Site.Error(w, r, err)
			return
		}
	}
	h.Title = "Mail"
	o.Site.Render(w, r, http.StatusOK, MailPage(o.Site, h, o.Mail.SMTP(), o.Mail.Dir(), list))
}

func (o *Ops) mailShow(w http.ResponseWriter, r *http.Request) {
	h, ok := o.require(w, r)
	if !ok {
		return
	}
	m, err := o.Mail.Read(r.PathValue("name"))
	if err != nil {
		o.Site.Error(w, r, err)
		return
	}
	h.Title = m.Subject
	o.Site.Render(w, r, http.StatusOK, MessagePage(o.Site, h, m))
}
