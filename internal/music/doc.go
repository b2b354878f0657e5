// Package music is the music-sharing social network under /music/: people
// share songs and playlists by link (shown as the site's embedded player,
// made from the URL alone: embed.go) with a comment and #hashtags, for
// everyone or for their friends only; befriend one another (requests,
// accept, decline, cancel, unfriend), block and mute; comment (the newest
// three on the card, all on the post's page), like, repost to their
// friends, turn comments off on their own posts, delete them (asked first)
// and report others' to the moderators; are notified of comments, likes,
// reposts and friend requests, with the unread count live in the page;
// browse their friends' posts (discovery), everyone's public ones, a tag's,
// a person's, and "What's hot", the cloud of hashtags trending among
// public posts.
//
// Audio posts (audio_*.go): a file uploaded, or a voice memo recorded in
// the page (static/audio.js, MediaRecorder), goes through the core's media
// path as the kind music-audio (format sniffed from the bytes, container
// read whole, 50 MB and 15 minutes at most; refused files store nothing);
// the post is its author's only ("processing") until the media.derive job
// has made its 200-bar waveform, and its original is served, with ranges,
// only to those who may see the post. The card draws the waveform as
// inline SVG (clicking it seeks), its length and listens (POST
// /music/p/{id}/play, once a listen); comments may be pinned to a moment
// (at), shown as ticks on the waveform.
//
// Routes (routes.go): pages GET /music/ (discovery; a visitor's: everyone's
// public posts), /music/everyone, /music/audio, /music/hot, /music/tags/{tag},
// /music/u/{name}, /music/p/{id}, /music/p/{id}/audio (the file),
// /music/people (?q=, and /suggest for the type-ahead); POST
// /music/p/{id}/play (anyone who may see it); signed in: /music/friends, /music/notifications,
// /music/stream (the unread count, Server-Sent Events), /music/reports
// (moderators), and the forms POST /music/posts, /music/p/{id}/comments,
// like, repost, comments-off, delete (GET: the page that asks), report
// (GET: the form), dismiss, /music/u/{name}/{verb}, /music/notifications/seen.
//
// Layers: handler -> Service -> Store, as in roar. Handlers (one a file:
// *_show.go, post_*.go, ...) parse the request and answer a page or a
// redirect; the signed-in check is signedIn in routes.go. The Service
// (service*.go) decides and writes through the core's group commit:
// canModerate is the one place that says who moderates. The Store
// (store.go, store_write.go) is SQL only, the same on SQLite and
// PostgreSQL; every timeline is one keyset query (posts with their
// authors, a repost's original, counts and the viewer's like) plus one for
// the newest comments of the page, whatever the number of friends or posts.
//
// Privacy: a post is public or for the author's friends. Every read takes
// the viewer and keeps to what they may see (Store.visible); a post a
// viewer may not see is not found, for reading and for acting on it alike;
// trending counts the tags of public posts only; visitors' cached pages
// hold public posts only.
//
// Speed: a post's card is a cached fragment keyed by the post, its counts
// and last change and the viewer's flags (fragment.go); visitors' pages are
// cached at music's version (music_meta, raised by every write) and served
// by the site's hot lane.
//
// What music shares with roar is the core's, over music's own tables:
// internal/social (the graph of friends, requests, blocks and mutes,
// notifications, likes, reports), internal/tags (hashtags, the tag index,
// trending and its Board), internal/live (the notify stream).
//
// Tables (migrations/): music_posts (kind 'link' or 'audio': media_id,
// duration_ms, peaks, plays, ready), music_comments (at_ms), music_likes,
// music_tags, music_tag_uses, music_friends, music_friend_requests,
// music_blocks, music_notifications, music_reports, music_meta.
package music
