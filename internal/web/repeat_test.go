package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// A form that nginx sends twice, because the instance that carried it out
// died before answering, is carried out once: the second send names the
// same request (X-Request-Id from a trusted proxy) and is sent back to the
// page the form was on. A client that names its requests itself, not
// through a trusted proxy, gets no such memory.
func TestRepeatedRequestWritesOnce(t *testing.T) {
	d := dbtest.Open(t, "", db.KeyMigrations, db.Migrations{App: "rt", FS: fstest.MapFS{
		"sqlite/00001_t.sql": {Data: []byte("-- +goose Up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n-- +goose Down\nDROP TABLE notes;\n")},
	}})
	p, err := ParseProxies("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	assets, _ := NewAssets(StaticFS(), "/static/")
	site := &Site{Assets: assets, Log: slog.New(slog.DiscardHandler)}
	h := p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := d.WithTx(r.Context(), func(tx *db.Tx) error {
			_, err := tx.Exec(r.Context(), "INSERT INTO notes (body) VALUES (?)", "hello")
			return err
		})
		if err != nil {
			site.Error(w, r, err)
			return
		}
		http.Redirect(w, r, "/notes/1", http.StatusSeeOther)
	}))
	send := func(peer, id, accept string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "http://example.test/notes", nil)
		r.RemoteAddr = peer
		r.Header.Set("X-Forwarded-For", "198.51.100.2")
		r.Header.Set("X-Request-Id", id)
		r.Header.Set("Referer", "http://example.test/notes?page=2")
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	notes := func() int {
		t.Helper()
		var n int
		if err := db.Scan(d.QueryRow(context.Background(), "SELECT count(*) FROM notes"), &n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	if w := send("127.0.0.1:4000", "nginx-1", ""); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/notes/1" {
		t.Fatalf("first send: %d to %q; want 303 to /notes/1", w.Code, w.Header().Get("Location"))
	}
	if w := send("127.0.0.1:4001", "nginx-1", ""); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/notes?page=2" {
		t.Errorf("the same request sent again: %d to %q; want 303 back to the form's page", w.Code, w.Header().Get("Location"))
	}
	if w := send("127.0.0.1:4001", "nginx-1", "application/json"); w.Code != http.StatusConflict {
		t.Errorf("sent again by an API client: %d; want 409", w.Code)
	}
	if n := notes(); n != 1 {
		t.Errorf("%d notes; want 1 (written once)", n)
	}
	// Not from a trusted proxy: the header names nothing.
	send("203.0.113.9:5000", "nginx-1", "")
	send("203.0.113.9:5000", "nginx-1", "")
	if n := notes(); n != 3 {
		t.Errorf("%d notes; want 3 (an untrusted client's id is not a key)", n)
	}
	// A GET is never a write to guard.
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "127.0.0.1:4000"
	r.Header.Set("X-Forwarded-For", "198.51.100.2")
	r.Header.Set("X-Request-Id", "nginx-2")
	var keyed bool
	p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keyed = d.WithTx(r.Context(), func(*db.Tx) error { return nil }) != nil ||
			d.WithTx(db.WithRequestKey(context.Background(), "nginx-2"), func(*db.Tx) error { return nil }) != nil
	})).ServeHTTP(httptest.NewRecorder(), r)
	if keyed {
		t.Error("a GET's request id was taken as a key")
	}
}
