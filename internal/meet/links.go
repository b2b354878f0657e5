package meet

import (
	"net/http"
	"strings"
)

// base is the scheme and host that full links start with: the configured
// --base-url, else the request's own (https when it came over TLS).
func (a *App) base(r *http.Request) string {
	if a.BaseURL != "" {
		return strings.TrimRight(a.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
