package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/tutti-dev/tutti/internal/db"
)

// Proxies are the reverse proxies (nginx, a load balancer) whose
// X-Forwarded-For and X-Forwarded-Proto are believed (TUTTI_TRUSTED_PROXIES).
// Behind one, every client would otherwise share the proxy's address (one
// rate-limit key for the whole site) and no request would look like https.
type Proxies struct{ nets []netip.Prefix }

// ParseProxies reads a comma-separated list of CIDRs or addresses
// ("10.0.0.0/8, 127.0.0.1"); "" trusts no one.
func ParseProxies(s string) (Proxies, error) {
	var p Proxies
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return Proxies{}, fmt.Errorf("trusted proxy %q: not an address or a CIDR", f)
			}
			f = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()).String()
		}
		n, err := netip.ParsePrefix(f)
		if err != nil {
			return Proxies{}, fmt.Errorf("trusted proxy %q: not an address or a CIDR", f)
		}
		p.nets = append(p.nets, n.Masked())
	}
	return p, nil
}

func (p Proxies) trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, n := range p.nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// maxForwardHops bounds how much of X-Forwarded-For is read: the client is
// the nearest address not a trusted proxy, a few hops from the right.
const maxForwardHops = 16

// Middleware makes the forwarded headers true for what follows: from a
// trusted proxy, r.RemoteAddr becomes the client's address (the rightmost
// X-Forwarded-For address that is not itself a trusted proxy: the leftmost
// ones are whatever the client claimed) and X-Forwarded-Proto is kept if it
// is http or https; from anyone else, both headers are removed, so that a
// client cannot claim another address or https. Put it outermost.
func (p Proxies) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		xff, xfp := r.Header["X-Forwarded-For"], r.Header["X-Forwarded-Proto"]
		if len(xff) == 0 && len(xfp) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		peer, err := netip.ParseAddrPort(r.RemoteAddr)
		if err != nil || !p.trusts(peer.Addr()) {
			delete(r.Header, "X-Forwarded-For")
			delete(r.Header, "X-Forwarded-Proto")
			next.ServeHTTP(w, r)
			return
		}
		if client, ok := p.client(xff); ok {
			r.RemoteAddr = net.JoinHostPort(client.String(), "0")
		}
		if len(xfp) != 1 || (xfp[0] != "https" && xfp[0] != "http") {
			delete(r.Header, "X-Forwarded-Proto")
		}
		if id, ok := incomingID(r); ok && !safeMethod(r.Method) {
			// The proxy names a request the same each time it sends it:
			// a write it sends again is carried out once (db.WithRequestKey).
			r = r.WithContext(db.WithRequestKey(r.Context(), id))
		}
		next.ServeHTTP(w, r)
	})
}

// safeMethod is a method that changes nothing (RFC 9110, 9.2.1).
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions || m == http.MethodTrace
}

// client walks X-Forwarded-For from the right (the hop nearest to us) past
// trusted proxies, at most maxForwardHops addresses.
func (p Proxies) client(xff []string) (netip.Addr, bool) {
	var last netip.Addr
	hops := 0
	for i := len(xff) - 1; i >= 0; i-- {
		v := xff[i]
		for v != "" && hops < maxForwardHops {
			var f string
			if j := strings.LastIndexByte(v, ','); j >= 0 {
				f, v = v[j+1:], v[:j]
			} else {
				f, v = v, ""
			}
			hops++
			a, err := netip.ParseAddr(strings.TrimSpace(f))
			if err != nil {
				return last, last.IsValid() // junk: stop at the last good hop
			}
			a = a.Unmap()
			if !p.trusts(a) {
				return a, true
			}
			last = a
		}
	}
	return last, last.IsValid() // all trusted: the farthest one
}

// IsHTTPS reports whether the client's request came over https: to us over
// TLS, or to a trusted proxy (Proxies.Middleware removes X-Forwarded-Proto
// from anyone else).
func IsHTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	v := r.Header["X-Forwarded-Proto"]
	return len(v) == 1 && v[0] == "https"
}

// ClientIP is the client's address: the peer's, or behind a trusted proxy
// the one it forwarded (see Proxies.Middleware).
func ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// LocalPath returns next if it is a same-site relative path ("/meet/..."),
// else "": no scheme, no host, no "//" or "/\" (which browsers read as a
// host), no control characters.
func LocalPath(next string) string {
	if next == "" || len(next) > 2000 || next[0] != '/' || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return ""
	}
	for i := 0; i < len(next); i++ {
		if next[i] < 0x20 || next[i] == 0x7f || next[i] == '\\' {
			return ""
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return ""
	}
	return next
}
