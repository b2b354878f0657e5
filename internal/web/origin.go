package web

import (
	"context"
	"net/http"
)

// Links in mail must be absolute, and without --base-url the only one who
// knows the site's address is the request: its Origin is kept with the
// flow it began (a job, an outbox row, a hold) and used when the mail is
// written, however much later and on whichever instance (mail.Mailer.Base
// is the one rule: --base-url, else the flow's origin, else the request's,
// else the address the site answers on).

type originKey struct{}

// Origin is r's scheme://host as the client asked for it: https when it
// came over TLS or a trusted proxy says so (Proxies.Middleware removes
// anyone else's X-Forwarded-Proto), the Host it named.
func Origin(r *http.Request) string {
	if r.Host == "" {
		return ""
	}
	if IsHTTPS(r) {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// WithOrigin makes the request's Origin known to what it calls
// (OriginOf), so that a service starting a mailed flow keeps it.
func WithOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner := r.WithContext(ContextWithOrigin(r.Context(), Origin(r)))
		next.ServeHTTP(w, inner)
		r.Pattern = inner.Pattern // the mux set it on the copy: Observe reads the route from r
	})
}

// ContextWithOrigin returns ctx carrying origin (background work carries
// the origin of the request that asked for it).
func ContextWithOrigin(ctx context.Context, origin string) context.Context {
	return context.WithValue(ctx, originKey{}, origin)
}

// OriginOf is the origin of the request ctx serves (WithOrigin), or "".
func OriginOf(ctx context.Context) string {
	o, _ := ctx.Value(originKey{}).(string)
	return o
}
