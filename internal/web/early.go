package web

import "net/http"

// Early registers h at pattern (a mux pattern) ahead of sessions: for what
// reads no user and must cost next to nothing, such as static files (a
// signed-in page's style sheets would each load the session otherwise) and
// a waiting room's page, refreshed by every visitor in a crowd. Register
// from an app's Routes, before the site serves; registering a pattern again
// replaces its handler (a second instance of an app on the same Site).
func (s *Site) Early(pattern string, h http.Handler) {
	if s.early == nil {
		s.early = map[string]http.Handler{}
	}
	s.early[pattern] = h
}

// EarlyVisitors is Early for the requests that carry no cookie: a page
// that is everyone's alike for visitors, but which a signed-in user may
// see otherwise (a director's preview of what is not public yet), is
// served to visitors ahead of sessions and to everyone else by the mux.
func (s *Site) EarlyVisitors(pattern string, h http.Handler) {
	s.Early(pattern, h)
	if s.visitors == nil {
		s.visitors = map[string]bool{}
	}
	s.visitors[pattern] = true
}

// EarlyLane sends the requests an Early pattern matches through ms (request
// ids, metrics, recovery, security headers: what every answer needs) to
// their handler, and everything else to full (which adds sessions, the
// cross-origin check and the body limit).
func (s *Site) EarlyLane(full http.Handler, ms ...Middleware) http.Handler {
	if len(s.early) == 0 {
		return full
	}
	early := http.NewServeMux()
	for pattern, h := range s.early {
		early.Handle(pattern, h)
	}
	light := Chain(early, ms...)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := early.Handler(r); pattern != "" && (!s.visitors[pattern] || len(r.Header["Cookie"]) == 0) {
			light.ServeHTTP(w, r)
			return
		}
		full.ServeHTTP(w, r)
	})
}
