package music

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// audioFormBody is POST /music/posts' body limit: an audio of
// MaxAudioBytes with the form's fields, and a file over the limit read
// past up to it so the form is answered with its fields (nginx's
// client_max_body_size is the same).
const audioFormBody = 64 << 20

// postCreate shares a link from the share form, or an audio (kind=audio: a
// multipart form, the file in the field audio, read as a stream and
// checked before anything is written). Bad input renders the discovery
// page again with what was typed and the messages at their fields (422);
// nothing is written. A JSON client gets 201 and the new post's id; a
// link's form goes back to the discovery page, an audio's to its post
// (processing, for its author, until its waveform is made).
func (a *App) postCreate(w http.ResponseWriter, r *http.Request) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "multipart/form-data" {
		a.audioCreate(w, r)
		return
	}
	if err := web.ParseForm(r, 16<<10); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := me(r)
	d := Draft{URL: r.PostForm.Get("url"), Comment: r.PostForm.Get("comment"), Visibility: r.PostForm.Get("visibility")}
	typed := d
	id, err := a.svc.Share(r.Context(), u, d)
	if err != nil {
		a.shareFailed(w, r, &shareForm{Draft: typed}, err)
		return
	}
	if web.WantsJSON(r) {
		web.JSON(w, http.StatusCreated, map[string]int64{"id": id})
		return
	}
	http.Redirect(w, r, "/music/", http.StatusSeeOther)
}

// audioCreate shares an audio from a multipart form.
func (a *App) audioCreate(w http.ResponseWriter, r *http.Request) {
	upload, err := a.Media.ReadForm(r, "audio", AudioKind)
	defer upload.Close()
	u := me(r)
	f := &shareForm{Draft: Draft{Comment: r.PostForm.Get("comment"), Visibility: r.PostForm.Get("visibility")}, Audio: true}
	if err != nil {
		a.shareFailed(w, r, f, err)
		return
	}
	if k := r.PostForm.Get("kind"); k != "" && k != KindAudio {
		a.shareFailed(w, r, f, errs.Fields(map[string]string{"audio": "A file is shared as an audio (kind=audio)."}))
		return
	}
	d := AudioDraft{Comment: f.Comment, Visibility: f.Visibility, Peaks: parsePeaks(r.PostForm.Get("peaks"))}
	if ms, err := strconv.ParseInt(r.PostForm.Get("duration_ms"), 10, 64); err == nil && ms > 0 {
		d.Duration = time.Duration(ms) * time.Millisecond
	}
	id, err := a.svc.ShareUpload(r.Context(), u, d, upload)
	if err != nil {
		a.shareFailed(w, r, f, err)
		return
	}
	if web.WantsJSON(r) {
		web.JSON(w, http.StatusCreated, map[string]any{"id": id, "kind": KindAudio, "ready": false, "url": postURL(id)})
		return
	}
	http.Redirect(w, r, postURL(id), http.StatusSeeOther)
}

// shareFailed answers a refused share: the discovery page again with what
// was typed and the messages at their fields (422; past the rate limit,
// 429 with Retry-After and the wait at the form's first field), or the
// error.
func (a *App) shareFailed(w http.ResponseWriter, r *http.Request, f *shareForm, err error) {
	e := errs.As(err)
	if (e.Kind != errs.Invalid && e.Kind != errs.TooMany) || web.WantsJSON(r) {
		a.Site.Error(w, r, err)
		return
	}
	first := "url"
	if f.Audio {
		first = "audio"
	}
	f.Errors = e.Fields
	if len(f.Errors) == 0 { // past the rate limit: the wait, at the first field
		f.Errors = map[string]string{first: e.Message}
	}
	status := web.RefusedStatus(w.Header(), e)
	r.URL.RawQuery = ""
	p, perr := a.discoveryView(r, me(r), f)
	if perr != nil {
		a.Site.Error(w, r, perr)
		return
	}
	a.Site.Render(w, r, status, a.musicPage(p))
}

// parsePeaks reads the browser's peaks: comma-separated numbers 0-255, at
// most Bars*5 of them; anything else is none (they are a stand-in only).
func parsePeaks(s string) []byte {
	if s == "" || len(s) > 4*Bars*5 {
		return nil
	}
	parts := strings.Split(s, ",")
	out := make([]byte, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 || n > 255 {
			return nil
		}
		out = append(out, byte(n))
	}
	return out
}
