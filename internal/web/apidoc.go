package web

import (
	"net/http"
	"sync"
)

// APIDocument serves an app API's description (its embedded openapi.json):
// built once into a Page with its ETag and gzip bytes, cacheable for an
// hour, then revalidated by the ETag; readable by API explorers on other
// sites.
func APIDocument(doc []byte) http.HandlerFunc {
	page := sync.OnceValue(func() *Page { return NewPage("application/json", doc, "") })
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		page().Serve(w, r)
	}
}
