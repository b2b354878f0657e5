// Package web is the HTTP core every app shares: middleware (request id, access
// log, panic recovery, gzip, security headers, body limits, cross-origin
// protection, metrics), rendering of templ components into a buffer, the one
// error path from error kinds to status pages or JSON problem details, cached
// pages with conditional GET, and content-hashed static assets.
//
// Every app's handlers answer through it, so that all apps behave alike: a
// page is Site.Render of a templ component in the shared layout; any error
// is Site.Error (a status page, or RFC 9457 problem details for JSON and
// /APP/api/ paths); input is read with ParseForm or DecodeJSON, which turn a
// malformed or oversized body into the client's error; a route that takes
// more than the server's body limit says so where it is registered
// (MaxBody). An app serves its own static files through an Assets (hashed
// URLs, immutable caching) and a cached public page as a Page (ETag and
// compressed bytes kept, NotModified for conditional GET). The middleware
// chain itself is assembled once, by internal/app.
package web
