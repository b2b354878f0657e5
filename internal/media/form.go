package media

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/web"
)

// A form with a file is read as a stream, part by part (never
// ParseMultipartForm, which keeps up to its memory argument of every file):
// its text fields into r.PostForm within fieldBytes each and fieldsBytes
// in all, the file of the named field to a temporary file. A file over its
// kind's MaxBytes stops being written at the limit; the rest of its part is
// read past (not kept) so that the fields sent after it are kept for the
// form shown again, up to a body of formSlack past the limit in all.
const (
	fieldBytes  = 64 << 10
	fieldsBytes = 1 << 20
	maxFields   = 200
)

// formSlack is how far past a kind's MaxBytes a form's body is read.
func formSlack(k *Kind) int64 { return k.MaxBytes + fieldsBytes + 64<<10 }

// CannotUpload is the field's message where files cannot be kept (no
// storage, or the kind not registered).
const CannotUpload = "Pictures cannot be uploaded here."

// Upload is a file read by ReadForm: spooled to a temporary file, its type
// sniffed and checked by its kind. Close removes it.
type Upload struct {
	Kind   *Kind
	Name   string // the name the client gave (never used as a key)
	Type   string // sniffed from the content
	Size   int64
	SHA256 string // hex
	Meta   Meta   // the kind's Check
	f      *os.File
}

// ReadAt reads the upload's bytes.
func (u *Upload) ReadAt(p []byte, off int64) (int, error) { return u.f.ReadAt(p, off) }

// Close removes the temporary file.
func (u *Upload) Close() error {
	if u == nil || u.f == nil {
		return nil
	}
	err := u.f.Close()
	os.Remove(u.f.Name())
	u.f = nil
	return err
}

// ReadForm reads r's form: its text fields into r.PostForm (and r.Form),
// and the file sent as field, checked as kind, returned (nil when none was
// chosen; the caller closes it). Every problem with the file is a field
// error (errs.Fields{field: message}) with the fields read kept in
// r.PostForm: empty, over the limit (also when the body passes the route's
// limit), a type not accepted, refused by the kind's Check. A body
// announcing more than the kind allows is refused before it is read
// (errs.TooLarge); a body that is not a form is a BadRequest, a malformed
// one Invalid. A url-encoded form (no file) is read as such.
func (s *Service) ReadForm(r *http.Request, field, kind string) (*Upload, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "multipart/form-data" {
		return nil, web.ParseForm(r, fieldsBytes)
	}
	k := s.kind(kind)
	if k == nil { // no storage: the form is read, a file refused
		k = &Kind{Name: kind, MaxBytes: fieldsBytes, TooLarge: CannotUpload}
	}
	limit := k.MaxBytes + formSlack(k)
	if r.ContentLength > limit {
		return nil, errs.E(errs.TooLarge, "The request is too large: %s", k.tooLarge())
	}
	r.Body = &capReader{r: r.Body, n: limit}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, errs.E(errs.Invalid, "The form could not be read.")
	}
	vals := url.Values{}
	r.PostForm, r.Form = vals, vals
	var up *Upload
	var fieldErr string
	fail := func(err error) (*Upload, error) {
		up.Close()
		return nil, err
	}
	budget := int64(fieldsBytes)
	for n := 0; ; n++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(s.formError(err, field, k, fieldErr))
		}
		if n >= maxFields {
			return fail(errs.E(errs.TooLarge, "The form has too many fields."))
		}
		name := p.FormName()
		switch {
		case name == "":
		case p.FileName() != "" && name == field && len(k.Types) == 0:
			fieldErr = CannotUpload
		case p.FileName() != "" && name == field && up == nil && fieldErr == "":
			up, fieldErr, err = spool(r.Context(), s.tmp, p, k)
			if err != nil {
				return fail(s.formError(err, field, k, fieldErr))
			}
		case p.FileName() != "": // another file, or a second one: not kept
		default:
			b, err := io.ReadAll(io.LimitReader(p, min(fieldBytes, budget)+1))
			if err != nil {
				return fail(s.formError(err, field, k, fieldErr))
			}
			if int64(len(b)) > min(fieldBytes, budget) {
				return fail(errs.E(errs.TooLarge, "The form is too large."))
			}
			budget -= int64(len(b))
			vals.Add(name, string(b))
		}
		if _, err := io.Copy(io.Discard, p); err != nil { // what was not kept
			return fail(s.formError(err, field, k, fieldErr))
		}
		p.Close()
	}
	if fieldErr != "" {
		return fail(errs.Fields(map[string]string{field: fieldErr}))
	}
	if up == nil {
		return nil, nil
	}
	if err := check(r.Context(), up); err != nil {
		if e := errs.As(err); e.Kind == errs.Invalid {
			return fail(errs.Fields(map[string]string{field: e.Message}))
		}
		return fail(err)
	}
	return up, nil
}

// spool writes a file part to a temporary file, counting, hashing and
// keeping its head; past the kind's limit it stops writing and returns the
// field's message (the caller reads past the rest).
func spool(ctx context.Context, dir string, p io.Reader, k *Kind) (*Upload, string, error) {
	f, err := os.CreateTemp(dir, "upload-*")
	if err != nil {
		return nil, "", err
	}
	up := &Upload{Kind: k, f: f}
	h := sha256.New()
	head := &headWriter{max: HeadBytes}
	w := io.MultiWriter(f, h, head)
	n, err := io.Copy(w, io.LimitReader(files.ContextReader(ctx, p), k.MaxBytes+1))
	if err != nil {
		up.Close()
		return nil, "", err
	}
	if n > k.MaxBytes {
		up.Close()
		return nil, k.tooLarge(), nil
	}
	if n == 0 {
		up.Close()
		return nil, "This file is empty: choose another.", nil
	}
	up.Size, up.SHA256 = n, hex.EncodeToString(h.Sum(nil))
	up.Type = k.sniff(head.b)
	if !k.accepts(up.Type) {
		up.Close()
		return nil, k.wrongType(), nil
	}
	return up, "", nil
}

// check runs the kind's Check on a spooled upload.
func check(ctx context.Context, up *Upload) error {
	if up.Kind.Check == nil {
		return nil
	}
	m, err := up.Kind.Check(ctx, up.f, up.Size)
	up.Meta = m
	return err
}

// formError is a read error of a form with a file: past the body limit
// (the route's, or the kind's slack), the file's field error, else the
// form could not be read.
func (s *Service) formError(err error, field string, k *Kind, fieldErr string) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) || errors.Is(err, errCapped) {
		if fieldErr == "" {
			fieldErr = k.tooLarge()
		}
		return errs.Fields(map[string]string{field: fieldErr})
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return errs.E(errs.Invalid, "The form could not be read.")
}

var errCapped = errors.New("media: form body over the limit")

// capReader fails past n bytes: a body is never read further.
type capReader struct {
	r io.ReadCloser
	n int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errCapped
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

func (c *capReader) Close() error { return c.r.Close() }

// headWriter keeps the first max bytes written.
type headWriter struct {
	b   []byte
	max int
}

func (h *headWriter) Write(p []byte) (int, error) {
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// sectionOf is a reader of the whole of f.
func sectionOf(f io.ReaderAt, size int64) *io.SectionReader { return io.NewSectionReader(f, 0, size) }
