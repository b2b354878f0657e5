// Package social is what the social apps (roar, music) share of people and
// what they do to one another: the graph between users (Graph: one-way
// follows, two-way friendships made by a request and its acceptance,
// blocks and mutes), notifications (Notifications: stored, grouped,
// counted, pushed to their user's live streams), likes with their counts
// (Likes) and reports to the moderators (Reports). Tags, mentions and
// trending live beside it, in package tags.
//
// # Tables: the app's own, in the core's shape
//
// The SQL is here; the rows live in tables of each app, named with its
// prefix (roar_follows, music_friends, ...), which the app creates in its
// own migrations with the columns each type's documentation lists. The
// core owns no table of its own, for these reasons:
//
//   - A like, a notification, a report or a tag is about one of the app's
//     rows (a roar, a song): in the app's table it has a foreign key to it,
//     so deleting the roar deletes them in the same statement, and the
//     database, not the code, guarantees that none is left dangling.
//   - A timeline is one query that joins the app's rows to these tables
//     (roar's home timeline, its marks of a page): the same statements as
//     before the core held them, on the same indexes, so nothing got slower
//     and no data had to move.
//   - Each app's people stand as they chose there: a mute on the microblog
//     is no mute on the music site, a follow is not a friendship.
//
// Every statement is built once, when the app builds its Graph, Likes, ...
// (table and column names are checked by db.Ident), and runs on SQLite and
// PostgreSQL alike. Writes take the app's transaction (*db.Tx), so that
// they commit with the app's own rows (and in its group commit, db.Batcher);
// reads take any db.Querier (the database, a replica, a transaction).
// Apps that need several of these facts in one round trip (roar's marks of
// a page) compose the SQL fragments the types give (RelationsSQL,
// LikedSQL, UnseenSQL, ...).
//
// Users are auth's users table: the core joins it for names and avatars.
// Times are unix milliseconds (created_at BIGINT).
package social
