// Package search is keyword search over an app's rows, the one way every
// app does it: race's results by a runner's name, the core's people search
// (auth's users, for music's "find people" and roar's @mentions), and
// rent's listings (which will add a distance filter: see Query.Where).
//
// It holds one folding rule (Fold: what a name is stored and searched as),
// the bounded reading of a search box (Words: a hostile query never builds
// a large MATCH or tsquery), and Index: the statements over an app's table
// and its word index, for SQLite and PostgreSQL, with each word matched as
// the start of a word of the text (type-ahead: "zo" finds Zoë), in the
// list's own order (keyset pages) or best match first (Query.Rank).
//
// # Tables: the app's own, in the core's shape
//
// As in packages social and tags, the rows and the index live in the
// app's tables, which its migrations create in the shape Config documents:
// the app writes Fold of the text searched into a column of its row (the
// key column), and the database keeps the word index from it, so that
// neither dialect folds anything itself (an unaccent() expression index
// on PostgreSQL answered in 32 ms what the stored column answers in under
// one). The statements are built once from names checked by db.Ident, and
// both dialects are written out:
//
//   - SQLite: an FTS5 table over the key column (rowid: the row's id),
//     kept by triggers, queried with "word"* for each word (no bm25 unless
//     asked: its ranking cost more than the search, 0.38 ms over 50,000
//     names without it); an optional scope column of the FTS5 table holds
//     a tag and the scope's id ('e12': race's event 12), so that one index
//     answers for every scope.
//   - PostgreSQL: a STORED tsvector column made from the key column's words
//     as they are (array_to_tsvector(string_to_array(key, ' '))), no
//     parser and no dictionary, with a GIN index; 'word':* for each word.
//     Its planner cannot tell a common start of a name from a rare one, so
//     a search in list order first checks the next rows of the list one by
//     one (few, and cheap when the start is common) before asking the index
//     (cheap when it is rare): see Find.
package search
