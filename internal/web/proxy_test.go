package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestProxies(t *testing.T) {
	p, err := ParseProxies("127.0.0.1, 10.0.0.0/8, ::1")
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		ip    string
		https bool
		xff   bool
	}
	var got seen
	h := p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = seen{ClientIP(r), IsHTTPS(r), len(r.Header["X-Forwarded-For"]) > 0}
	}))
	many := strings.Repeat("10.1.1.1, ", 40) + "10.2.2.2"
	for _, c := range []struct {
		name, peer string
		xff        []string
		proto      string
		want       seen
	}{
		{"no proxy", "203.0.113.7:5000", nil, "", seen{"203.0.113.7", false, false}},
		{"a client claims an address and https", "203.0.113.7:5000", []string{"1.2.3.4"}, "https", seen{"203.0.113.7", false, false}},
		{"nginx on loopback", "127.0.0.1:4000", []string{"198.51.100.2"}, "https", seen{"198.51.100.2", true, true}},
		{"a client's claim before nginx's hop", "127.0.0.1:4000", []string{"1.2.3.4, 198.51.100.2"}, "http", seen{"198.51.100.2", false, true}},
		{"two trusted hops", "127.0.0.1:4000", []string{"1.2.3.4, 198.51.100.2", "10.0.0.9"}, "https", seen{"198.51.100.2", true, true}},
		{"IPv6 client", "[::1]:4000", []string{"2001:db8::1"}, "https", seen{"2001:db8::1", true, true}},
		{"IPv4-mapped", "127.0.0.1:4000", []string{"::ffff:198.51.100.3"}, "", seen{"198.51.100.3", false, true}},
		{"junk from the client", "127.0.0.1:4000", []string{"<script>, 10.0.0.9"}, "", seen{"10.0.0.9", false, true}},
		{"only proxies, bounded", "127.0.0.1:4000", []string{many}, "", seen{"10.1.1.1", false, true}},
		{"a proto that is neither", "127.0.0.1:4000", []string{"198.51.100.2"}, "https, http", seen{"198.51.100.2", false, true}},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.peer
		if c.xff != nil {
			r.Header["X-Forwarded-For"] = c.xff
		}
		if c.proto != "" {
			r.Header.Set("X-Forwarded-Proto", c.proto)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got != c.want {
			t.Errorf("%s: %+v; want %+v", c.name, got, c.want)
		}
	}
	for _, bad := range []string{"nope", "10.0.0.0/33", "1.2.3.4/x"} {
		if _, err := ParseProxies(bad); err == nil {
			t.Errorf("ParseProxies(%q) accepted", bad)
		}
	}
	if p, err := ParseProxies(""); err != nil || len(p.nets) != 0 {
		t.Errorf("empty: %v %v", p, err)
	}
}

// A request's origin is its scheme and Host: https only over TLS or from
// a trusted proxy that says so.
func TestOrigin(t *testing.T) {
	p, err := ParseProxies("10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		peer, proto, want string
	}{
		{"192.0.2.9:5000", "", "http://race.example:8080"},
		{"192.0.2.9:5000", "https", "http://race.example:8080"}, // not trusted: not believed
		{"10.0.0.1:5000", "https", "https://race.example:8080"},
	} {
		var got string
		h := p.Middleware(WithOrigin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = OriginOf(r.Context()) })))
		r := httptest.NewRequest(http.MethodGet, "http://race.example:8080/race/", nil)
		r.RemoteAddr = c.peer
		if c.proto != "" {
			r.Header.Set("X-Forwarded-Proto", c.proto)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got != c.want {
			t.Errorf("from %s with X-Forwarded-Proto %q: got %s; want %s", c.peer, c.proto, got, c.want)
		}
	}
}
