// Package results is a race's results: a director imports a results file
// (CSV, checked whole: Parse) for an event and publishes it; runners page
// through the list, look a runner up by name or bib (the core's keyword
// search, package search, paged by a db.Cursor keyset) and get the search
// box's suggestions.
//
// Inside it, handlers (show.go for runners, admin.go for directors) call
// the Service, which decides who sees what; the Store is SQL only. The
// director's pages are mounted in race's admin group, whose middleware has
// checked the director once (races.DirectingOf). Visitors' pages are
// cached under the race's version (races.VersionScope), so an import or a
// publishing shows at once.
//
// It knows race through package races (the race day and its events) and
// the few functions of Deps; race mounts it (New, App.Routes), never the
// other way round. Its tables are race's (race_results and its word index,
// in race's migrations).
package results
