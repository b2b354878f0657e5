package mail

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Stored is an .eml file written without SMTP.
type Stored struct {
	Name    string // file name, the page's key
	From    string
	To      string
	Subject string
	Date    time.Time
	Text    string // the decoded body (Read only)
}

// List returns up to limit stored messages, newest first.
func (m *Mailer) List(limit int) ([]Stored, error) {
	ents, err := os.ReadDir(m.cfg.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mail: list: %w", err)
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && ValidName(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	slices.Reverse(names)
	out := make([]Stored, 0, min(limit, len(names)))
	for _, n := range names[:min(limit, len(names))] {
		s, err := ReadFile(filepath.Join(m.cfg.Dir, n), false)
		if err != nil {
			return nil, err
		}
		out = append(out, *s)
	}
	return out, nil
}

// Read returns one stored message with its body; errs.ErrNotFound if there is none.
func (m *Mailer) Read(name string) (*Stored, error) {
	if !ValidName(name) {
		return nil, errs.ErrNotFound
	}
	s, err := ReadFile(filepath.Join(m.cfg.Dir, name), true)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errs.ErrNotFound
	}
	return s, err
}

// ReadFile parses an .eml file: its headers and, if body, its decoded
// plain-text body.
func ReadFile(path string, body bool) (*Stored, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	msg, err := mail.ReadMessage(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("mail: read %s: %w", filepath.Base(path), err)
	}
	dec := new(mime.WordDecoder)
	hdr := func(k string) string {
		v := msg.Header.Get(k)
		if d, err := dec.DecodeHeader(v); err == nil {
			return d
		}
		return v
	}
	s := &Stored{Name: filepath.Base(path), From: hdr("From"), To: hdr("To"), Subject: hdr("Subject")}
	s.Date, _ = msg.Header.Date()
	if !body {
		return s, nil
	}
	var r io.Reader = msg.Body
	switch strings.ToLower(msg.Header.Get("Content-Transfer-Encoding")) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("mail: read %s: %w", s.Name, err)
	}
	s.Text = strings.ReplaceAll(string(b), "\r\n", "\n")
	return s, nil
}
