package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/errs"
)

type postBody struct {
	Body    string `json:"body"`
	ReplyTo int64  `json:"reply_to"`
}

func decode(s string) error {
	r := httptest.NewRequest("POST", "/roar/api/roars", strings.NewReader(s))
	r.Header.Set("Content-Type", "application/json")
	var p postBody
	return DecodeJSON(r, &p)
}

func TestDecodeJSON(t *testing.T) {
	tests := []struct {
		in    string
		kind  errs.Kind
		field string
	}{
		{`{"body":"hi"}`, -1, ""},
		{`{"body":"hi","reply_to":3}`, -1, ""},
		{`{"body":1}`, errs.Invalid, "body"},
		{`{"reply_to":"x"}`, errs.Invalid, "reply_to"},
		{`{"body":"hi","admin":true}`, errs.Invalid, "admin"},
		{`{"body":"hi"} {}`, errs.Invalid, ""},
		{`{"body":`, errs.Invalid, ""},
		{``, errs.Invalid, ""},
		{`[]`, errs.Invalid, ""},
	}
	for _, tt := range tests {
		err := decode(tt.in)
		if tt.kind == -1 {
			if err != nil {
				t.Errorf("DecodeJSON(%s) = %v; want nil", tt.in, err)
			}
			continue
		}
		e := errs.As(err)
		if err == nil || e.Kind != tt.kind {
			t.Errorf("DecodeJSON(%s) = %v; want kind %d", tt.in, err, tt.kind)
			continue
		}
		if tt.field != "" && e.Fields[tt.field] == "" {
			t.Errorf("DecodeJSON(%s): no message for field %q in %v", tt.in, tt.field, e.Fields)
		}
	}
	r := httptest.NewRequest("POST", "/x", strings.NewReader(`{"body":"`+strings.Repeat("a", 100)+`"}`))
	r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, 16)
	var p postBody
	if e := errs.As(DecodeJSON(r, &p)); e.Kind != errs.TooLarge {
		t.Errorf("oversized body: got kind %d; want TooLarge", e.Kind)
	}
	r = httptest.NewRequest("POST", "/x", strings.NewReader(`{}`))
	r.Header.Set("Content-Type", "text/plain")
	if e := errs.As(DecodeJSON(r, &p)); e.Kind != errs.Invalid {
		t.Errorf("text/plain body: got kind %d; want Invalid", e.Kind)
	}
}

// FuzzDecodeJSON: any body is either decoded or refused as the client's
// error (never an internal one, never a panic).
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"body":"hi"}`, `{"body":1}`, `{"x":`, `null`, `{"reply_to":1e99}`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := decode(s)
		if err != nil && errs.As(err).Kind == errs.Internal {
			t.Fatalf("DecodeJSON(%q) = internal error %v", s, err)
		}
	})
}
