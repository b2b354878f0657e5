// Package roar is the microblog with a live timeline: roars of up to 280
// characters with @mentions, #hashtags and links, replies, reposts, likes,
// follows, mutes and blocks, notifications, reports to moderators, and a
// JSON API (api.go, openapi.json) beside the pages.
//
// Routes: pages under /roar/ (routes.go), the API under /roar/api/
// (api.go), the live stream at /roar/stream (Server-Sent Events, with
// /roar/live as the polling fallback).
//
// Layers: handler -> Service -> Store.
//
//   - Handlers (App's methods in pages.go, actions.go, api*.go, stream.go)
//     parse the request, call the Service and answer: a page (templ views,
//     views.go) or a redirect, JSON for the API, and every error through
//     web.Site.Error (an error page, or RFC 9457 problem details for JSON).
//     Forms that fail validation are rendered again with the text kept.
//     They make no decision and never call the Store. Caching a whole
//     response is theirs too: visitors' pages and the public API page
//     (serveCached, cache.Pages; a hit is served by the site's hot lane,
//     App.hot), the rendered roar articles (fragment.go), and dressing the
//     live events with a roar's HTML and API form (App.announce) before the
//     hub sends them.
//   - The Service (service*.go) owns every decision and write: sign-in,
//     the author or a moderator (delete, reports), validation (CleanBody,
//     a report's reason), the posting rate limit (Deps.PostLimit), the
//     write through the core's group commit (db.Batcher), roar's version
//     (internal/version, which keys every cache), and the live events,
//     published only after the commit. It reads timelines, threads,
//     profiles and notifications with the viewer's marks (Viewer), the
//     public timeline's first page from the shared cache, and decides who
//     sees which live event (StreamFilter). It knows nothing of HTTP;
//     service_test.go drives it alone on both databases.
//   - The Store (store.go, store_write.go) is SQL only, the same statements
//     on SQLite and PostgreSQL. Inside the write's transaction it checks
//     again what rows written at the same moment could break (blocks, one
//     repost each, the author of a deleted roar), with the Service's errors.
//
// What roar shares with music is the core's, over roar's own tables: the
// graph of follows, blocks and mutes, notifications, likes and reports
// (internal/social), hashtag and mention parsing, the tag index and
// trending (internal/tags; the Trending box of the timelines is a
// tags.Board, read from memory). The Store builds its one-query timelines
// and marks from their SQL fragments.
//
// demo.go and seed.go are tools, not handlers: the demo posts through the
// Service's insert (no rate limit), the seed bulk-inserts with its own SQL.
//
// Tables: roars, roar_tags, roar_likes, roar_follows, roar_blocks (blocks
// and mutes), roar_notifications, roar_reports, roar_tag_uses (trending),
// and roar_meta, whose version every write raises in its transaction
// (migrations/).
package roar
