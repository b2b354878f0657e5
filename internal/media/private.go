package media

import (
	"net/http"
	"strings"

	"github.com/tutti-dev/tutti/internal/files"
)

func isPrivate(key string) bool { return strings.HasPrefix(key, PrivatePrefix) }

// ServePrivate serves the stored file key to a viewer the app has already
// allowed to see it (call it only then): with http.ServeContent's ranges
// and conditional requests (206, 304, 416), its content type from its
// key, never sniffed by the browser, and cached only by that browser
// (Cache-Control private, revalidated each time, since who may see it can
// change; Vary: Cookie). A missing file is a 404.
func ServePrivate(w http.ResponseWriter, r *http.Request, s files.Storage, key string) {
	w.Header().Add("Vary", "Cookie")
	files.Serve(w, r, s, key, "private, no-cache")
}
