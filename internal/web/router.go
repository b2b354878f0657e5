package web

import "net/http"

// Router registers one app's routes on the site's mux, under the app's
// path prefix, each handler wrapped in the middleware of its group: a
// handler mounted in a group that requires a signed-in user (auth.SignedIn)
// or a role (auth.RequireRole) is never reached without it, so it cannot
// forget the check.
//
//	r := web.NewRouter(mux, "/roar")
//	r.Get("/{$}", a.publicPage)                      // GET /roar/{$}
//	signed := r.Group(auth.SignedIn(a.signIn))
//	signed.Get("/home", a.homePage)                  // GET /roar/home, signed in
//	mods := signed.Group(auth.RequireRole("roar", "moderator", deny))
//	mods.Get("/reports", a.reportsShow)
//	admin := r.Route("/r/{slug}/admin", a.director)  // GET /race/r/{slug}/admin, ...
//	admin.Get("", a.adminShow)
//
// Middleware run in the order given, the router's before its groups'. A
// handler's own body limit (MaxBody) stays outermost, where the site
// finds it (Site.LimitBody).
type Router struct {
	mux    *http.ServeMux
	prefix string
	mw     []Middleware
}

// NewRouter is a router that mounts on mux under prefix ("/roar": no
// trailing slash).
func NewRouter(mux *http.ServeMux, prefix string) *Router {
	return &Router{mux: mux, prefix: prefix}
}

// Prefix is the router's path prefix.
func (rt *Router) Prefix() string { return rt.prefix }

// Path is path under the prefix: the full path of a route.
func (rt *Router) Path(path string) string { return rt.prefix + path }

// Pattern is the ServeMux pattern "METHOD PREFIX+path", for what takes
// patterns itself (Site.Hot, Site.Early).
func (rt *Router) Pattern(method, path string) string { return method + " " + rt.prefix + path }

// Group is a router with the same prefix whose routes also run mw.
func (rt *Router) Group(mw ...Middleware) *Router {
	return &Router{mux: rt.mux, prefix: rt.prefix, mw: append(rt.mw[:len(rt.mw):len(rt.mw)], mw...)}
}

// Route is a group under the longer prefix PREFIX+path.
func (rt *Router) Route(path string, mw ...Middleware) *Router {
	g := rt.Group(mw...)
	g.prefix += path
	return g
}

// Handle mounts h for method (GET, POST, ...; "" for any) at PREFIX+path.
func (rt *Router) Handle(method, path string, h http.Handler) {
	pattern := rt.prefix + path
	if method != "" {
		pattern = method + " " + pattern
	}
	if mb, ok := h.(maxBody); ok { // the limit stays where the site looks for it
		rt.mux.Handle(pattern, maxBody{n: mb.n, h: Chain(mb.h, rt.mw...)})
		return
	}
	rt.mux.Handle(pattern, Chain(h, rt.mw...))
}

// Get mounts h for GET (and HEAD) at PREFIX+path.
func (rt *Router) Get(path string, h http.HandlerFunc) { rt.Handle(http.MethodGet, path, h) }

// Post mounts h for POST at PREFIX+path.
func (rt *Router) Post(path string, h http.HandlerFunc) { rt.Handle(http.MethodPost, path, h) }

// Put mounts h for PUT at PREFIX+path.
func (rt *Router) Put(path string, h http.HandlerFunc) { rt.Handle(http.MethodPut, path, h) }

// Patch mounts h for PATCH at PREFIX+path.
func (rt *Router) Patch(path string, h http.HandlerFunc) { rt.Handle(http.MethodPatch, path, h) }

// Delete mounts h for DELETE at PREFIX+path.
func (rt *Router) Delete(path string, h http.HandlerFunc) { rt.Handle(http.MethodDelete, path, h) }
