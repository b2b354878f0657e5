// Package mail sends tutti's e-mail from the outbox. A message is enqueued as
// a job (internal/jobs) in the transaction of the change it follows; the
// job's handler sends it, at a bounded rate per instance, through SMTP
// (github.com/wneessen/go-mail) when --smtp-url is set, or else writes it as
// an .eml file in DATA-DIR/mail, which the operators' page lists so that a
// newcomer can read what the site would have sent.
//
// Code that sends mail never talks to SMTP itself: it calls
// Mailer.Enqueue inside the transaction of the change the mail is about (a
// rolled-back change sends nothing; a committed one is sent even if the
// process dies meanwhile) and Notify after the commit. Sending is at least
// once, so a message must make sense if received twice.
package mail

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/ratelimit"
	"github.com/tutti-dev/tutti/internal/web"
)

// Kind is the job kind of an outgoing message.
const Kind = "mail.send"

// Message is one plain-text e-mail.
type Message struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
	Text    string `json:"text"`
}

// Config sets up a Mailer.
type Config struct {
	SMTPURL   string  // smtp://[user:pass@]host:port (STARTTLS when offered) or smtps://... (TLS); empty: write .eml files
	From      string  // the From address
	PerSecond float64 // sends per second for the whole site (bursts of as many); <= 0: 10
	// Limiter makes the sending rate's limiter: shared by every instance
	// in cluster mode (ratelimit.RedisMaker), so that the site's rate is
	// PerSecond however many instances send; nil: this process's own
	// (embedded mode: the one instance).
	Limiter ratelimit.Maker
	Dir     string // where .eml files go without SMTP
	Log     *slog.Logger
	// BaseURL is the site's public URL (--base-url): when set, every
	// link in mail starts with it.
	BaseURL string
	// Site is the address the site answers on (its listener), for links
	// in mail that no request began; nil or "": http://localhost.
	Site func() string
}

// Mailer enqueues and sends mail.
type Mailer struct {
	cfg   Config
	q     *jobs.Queue
	lim   ratelimit.Limiter
	smtp  []gomail.Option
	host  string
	log   *slog.Logger
	nowFn func() time.Time
}

// The defaults of Config (and of --mail-from, --mail-per-second).
const (
	DefaultFrom      = "tutti <noreply@localhost>"
	DefaultPerSecond = 10
)

// New checks cfg and registers the sending handler on q.
func New(cfg Config, q *jobs.Queue) (*Mailer, error) {
	if cfg.PerSecond <= 0 {
		cfg.PerSecond = DefaultPerSecond
	}
	if cfg.From == "" {
		cfg.From = DefaultFrom
	}
	if _, err := mail.ParseAddress(cfg.From); err != nil {
		return nil, fmt.Errorf("mail-from %q: %w", cfg.From, err)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	every, burst := time.Duration(float64(time.Second)/cfg.PerSecond), max(1, int(cfg.PerSecond))
	m := &Mailer{cfg: cfg, q: q, log: cfg.Log, nowFn: time.Now, lim: ratelimit.NewBucket(every, burst)}
	if cfg.Limiter != nil {
		m.lim = cfg.Limiter("mail", every, burst)
	}
	if cfg.SMTPURL != "" {
		host, opts, err := ParseSMTPURL(cfg.SMTPURL)
		if err != nil {
			return nil, err
		}
		m.host, m.smtp = host, opts
	} else if err := os.MkdirAll(cfg.Dir, 0o750); err != nil {
		return nil, fmt.Errorf("mail: %w", err)
	}
	q.Handle(Kind, func(ctx context.Context, j *jobs.Job) error {
		var msg Message
		if err := j.Decode(&msg); err != nil {
			return err
		}
		return m.Send(ctx, msg)
	})
	return m, nil
}

// ParseSMTPURL reads smtp://[user:pass@]host[:port] (port 587 by default;
// STARTTLS if the server offers it) or smtps://... (TLS from the start, port
// 465) into go-mail options.
func ParseSMTPURL(s string) (host string, opts []gomail.Option, err error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return "", nil, errors.New("smtp-url must look like smtp://user:password@host:port or smtps://...")
	}
	host = u.Hostname()
	port := 587
	if u.Scheme == "smtps" {
		port = 465
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return "", nil, fmt.Errorf("smtp-url port %q", p)
		}
	}
	opts = append(opts, gomail.WithPort(port), gomail.WithTimeout(30*time.Second))
	if u.User != nil {
		pw, _ := u.User.Password()
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(u.User.Username()), gomail.WithPassword(pw))
	}
	return host, opts, nil
}

// SMTP reports whether mail goes out through SMTP (else to .eml files).
func (m *Mailer) SMTP() bool { return m.host != "" }

// Base is what links in mail start with (scheme://host, no trailing
// slash), the one rule of every app: the configured BaseURL when set; else
// flow, the origin of the request that began the flow the mail is about,
// kept with it (web.Origin); else the origin of the request ctx serves
// (web.OriginOf); else the address the site answers on.
func (m *Mailer) Base(ctx context.Context, flow string) string {
	switch {
	case m.cfg.BaseURL != "":
		return strings.TrimRight(m.cfg.BaseURL, "/")
	case flow != "":
		return strings.TrimRight(flow, "/")
	case web.OriginOf(ctx) != "":
		return web.OriginOf(ctx)
	}
	if m.cfg.Site != nil {
		if s := m.cfg.Site(); s != "" {
			return strings.TrimRight(s, "/")
		}
	}
	return "http://localhost"
}

// Link is path ("/race/...") as an absolute URL for a mail (see Base).
func (m *Mailer) Link(ctx context.Context, flow, path string) string {
	return m.Base(ctx, flow) + path
}

// Dir is where .eml files are written without SMTP.
func (m *Mailer) Dir() string { return m.cfg.Dir }

// Enqueue puts msg in the outbox within tx: it is sent if and only if tx
// commits. Call Notify after the commit to send it at once.
func (m *Mailer) Enqueue(ctx context.Context, tx *db.Tx, msg Message) error {
	return m.EnqueueMany(ctx, tx, []Message{msg})
}

// EnqueueMany puts msgs in the outbox within tx, a few hundred a
// statement (jobs.Queue.EnqueueMany): one message refused (a bad
// recipient) enqueues none.
func (m *Mailer) EnqueueMany(ctx context.Context, tx *db.Tx, msgs []Message) error {
	for _, msg := range msgs {
		if _, err := mail.ParseAddress(msg.To); err != nil {
			return fmt.Errorf("mail: recipient %q: %w", msg.To, err)
		}
	}
	return m.q.EnqueueMany(ctx, tx, Kind, len(msgs), func(i int) any { return msgs[i] })
}

// Notify wakes the workers after a commit that enqueued mail.
func (m *Mailer) Notify() { m.q.Notify() }

// Undeliverable reports whether address to is in the .invalid top-level
// domain, which RFC 2606 reserves for addresses that cannot exist: the
// accounts a load rehearsal makes have them, and their mail is dropped
// rather than sent (nor written, nor counted against the sending rate).
func Undeliverable(to string) bool {
	a, err := mail.ParseAddress(to)
	if err != nil {
		return false
	}
	return strings.HasSuffix(strings.ToLower(a.Address), ".invalid")
}

// wait waits for the sending rate to allow one more.
func (m *Mailer) wait(ctx context.Context) error {
	for {
		ok, after := m.lim.Allow(ctx, "send")
		if ok {
			return nil
		}
		t := time.NewTimer(max(after, time.Millisecond))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Send sends msg now (the outbox's handler), waiting for the rate limit;
// mail to an Undeliverable address is dropped.
func (m *Mailer) Send(ctx context.Context, msg Message) error {
	if Undeliverable(msg.To) {
		return nil
	}
	if err := m.wait(ctx); err != nil {
		return err
	}
	g := gomail.NewMsg()
	if err := g.From(m.cfg.From); err != nil {
		return jobs.Permanent(fmt.Errorf("mail: from: %w", err))
	}
	if err := g.To(msg.To); err != nil {
		return jobs.Permanent(fmt.Errorf("mail: to: %w", err))
	}
	g.Subject(msg.Subject)
	g.SetDateWithValue(m.nowFn())
	g.SetMessageID()
	if id := web.RequestID(ctx); id != "" {
		g.SetGenHeader("X-Tutti-Request-Id", id)
	}
	g.SetBodyString(gomail.TypeTextPlain, msg.Text)
	if m.SMTP() {
		c, err := gomail.NewClient(m.host, m.smtp...)
		if err != nil {
			return jobs.Permanent(fmt.Errorf("mail: smtp client: %w", err))
		}
		if err := c.DialAndSendWithContext(ctx, g); err != nil {
			return fmt.Errorf("mail: send to %s via %s: %w", msg.To, m.host, err)
		}
		m.log.InfoContext(ctx, "mail sent", "id", web.RequestID(ctx), "subject", msg.Subject)
		return nil
	}
	return m.writeFile(g)
}

// writeFile writes the message as DIR/<time>-<random>.eml, atomically.
func (m *Mailer) writeFile(g *gomail.Msg) error {
	b := make([]byte, 4)
	rand.Read(b)
	name := m.nowFn().UTC().Format("20060102T150405.000") + "-" + hex.EncodeToString(b) + ".eml"
	tmp := filepath.Join(m.cfg.Dir, "."+name)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if _, err := g.WriteTo(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("mail: write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("mail: write %s: %w", name, err)
	}
	if err := os.Rename(tmp, filepath.Join(m.cfg.Dir, name)); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	return nil
}

// ValidName reports whether name is an .eml file name this package writes
// (no path, nothing hidden), for the page that shows one.
func ValidName(name string) bool {
	return strings.HasSuffix(name, ".eml") && !strings.ContainsAny(name, `/\`) && !strings.HasPrefix(name, ".") && len(name) < 100
}
