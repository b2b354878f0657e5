// Package web is the HTTP core every app shares: middleware (request id, access
// log, panic recovery, gzip, security headers, body limits, cross-origin
// protection, metrics), rendering of templ components into a buffer, the one
// error path from error kinds to status pages or JSON problem details, cached
// pages with conditional GET, and content-hashed static assets.
package web
