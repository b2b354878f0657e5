// Package tags is what the social apps (roar, music) share of the words
// people tag and name in what they write: parsing a post's #hashtags,
// @mentions and links (Parse), the mentioned users (Mentioned), the index
// of posts by tag and the tag timelines over it (Index), and what is
// trending (Trending: uses of each tag counted in time buckets, decayed so
// that recent use weighs more, and a Board that keeps the top tags for
// pages to read without a query).
//
// As in package social, the rows live in the app's own tables, in the
// shapes the types document, so that an index row has its foreign key to
// the app's post (deleted with it) and the app's timelines stay one query;
// the statements are built once from names checked by db.Ident.
package tags
