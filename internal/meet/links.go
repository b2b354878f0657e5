package meet

import (
	"net/http"
	"strings"

	"github.com/tutti-dev/tutti/internal/web"
)

// base is the scheme and host that full links start with: the configured
// --base-url, else the request's own (https when it came over TLS, or to a trusted proxy over https).
func (a *App) base(r *http.Request) string {
	if a.BaseURL != "" {
		return strings.TrimRight(a.BaseURL, "/")
	}
	scheme := "http"
	if web.IsHTTPS(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
