package search

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/tutti-dev/tutti/internal/db"
)

// Config names an app's table and its word index, as its migrations made
// them:
//
//	<Table> (<ID> integer PRIMARY KEY, <Key> TEXT NOT NULL (Fold of the text),
//	         [<Scope> BIGINT, INDEX or UNIQUE (<Scope>, <Order>)], ...)
//	SQLite:     CREATE VIRTUAL TABLE <FTS> USING fts5 (<Key> [, <ScopeFTS>], ...)
//	            rowid = <ID>, kept by triggers on <Table>; <ScopeFTS> holds
//	            <ScopeTag> || <Scope> ('e12')
//	PostgreSQL: <Vector> tsvector GENERATED ALWAYS AS
//	            (array_to_tsvector(string_to_array(<Key>, ' '))) STORED,
//	            with a GIN index on it
//
// The list order (Order, or ID) must be unique within a scope; on SQLite
// it must also be the order of the rows' ids within a scope (SQLite walks
// the FTS5 index in rowid order and stops at the LIMIT): rows numbered in
// their list order, or ordered by id.
type Config struct {
	Table    string // the app's table ("race_results")
	ID       string // its integer primary key, the FTS5 table's rowid ("id")
	Key      string // the column of Fold of the text searched, in both tables ("name_key")
	FTS      string // SQLite: the FTS5 table ("race_results_fts")
	Vector   string // PostgreSQL: the tsvector column ("name_words")
	Scope    string // optional: the column a search is within ("event_id")
	ScopeFTS string // SQLite, with Scope: the FTS5 column of ScopeTag and the scope ("ev")
	ScopeTag string // SQLite, with Scope: letters before the scope's id there ("e")
	Order    string // the list order, ascending ("pos"); empty: ID
	Columns  string // what a search returns, of the table as r ("r.pos, r.name")
}

// Index runs searches over one app table (NewIndex).
type Index struct {
	c       Config
	dialect db.Dialect
	order   string // r.<Order>
	// SQLite
	liteFrom string // SELECT cols FROM fts f JOIN table r ON r.id = f.rowid WHERE fts MATCH ?
	// PostgreSQL
	pgScan   string // SELECT cols FROM (SELECT * FROM table WHERE <scope = ? AND > ?> ORDER BY order LIMIT scanFirst) r WHERE vec @@ ?::tsquery
	pgIndex  string // WITH m AS MATERIALIZED (SELECT * FROM table WHERE vec @@ ?::tsquery) SELECT cols FROM m r WHERE true
	pgRanked string // SELECT cols FROM table r WHERE r.vec @@ ?::tsquery
}

// ScanFirst is how many rows of the list a PostgreSQL search in list
// order checks one by one before it asks the GIN index (0.2 ms at most):
// when the words' start is common they hold the page; when it is rare,
// the index's matches are few and cheap to sort.
const ScanFirst = 500

// NewIndex is the index that c describes, on dialect. Every name is
// checked by db.Ident (a bad one panics: a bug found at start).
func NewIndex(dialect db.Dialect, c Config) *Index {
	c.Table, c.ID, c.Key = db.Ident(c.Table), db.Ident(c.ID), db.Ident(c.Key)
	if c.Order == "" {
		c.Order = c.ID
	}
	c.Order = db.Ident(c.Order)
	if c.Columns == "" {
		panic("search: Config.Columns is empty")
	}
	x := &Index{c: c, dialect: dialect, order: "r." + c.Order}
	switch dialect {
	case db.SQLite:
		c.FTS = db.Ident(c.FTS)
		if c.Scope != "" {
			c.Scope, c.ScopeFTS, c.ScopeTag = db.Ident(c.Scope), db.Ident(c.ScopeFTS), db.Ident(c.ScopeTag)
		}
		x.liteFrom = "SELECT " + c.Columns + " FROM " + c.FTS + " f JOIN " + c.Table + " r ON r." + c.ID + " = f.rowid WHERE " + c.FTS + " MATCH ?"
	case db.Postgres:
		c.Vector = db.Ident(c.Vector)
		where := " WHERE true"
		if c.Scope != "" {
			c.Scope = db.Ident(c.Scope)
			where = " WHERE " + c.Scope + " = ?"
		}
		x.pgScan = "SELECT " + c.Columns + " FROM (SELECT * FROM " + c.Table + where + " AND " + c.Order + " > ? ORDER BY " + c.Order +
			" LIMIT " + strconv.Itoa(ScanFirst) + ") r WHERE r." + c.Vector + " @@ ?::tsquery"
		x.pgIndex = "WITH m AS MATERIALIZED (SELECT * FROM " + c.Table + " WHERE " + c.Vector + " @@ ?::tsquery) SELECT " + c.Columns + " FROM m r WHERE true"
		x.pgRanked = "SELECT " + c.Columns + " FROM " + c.Table + " r WHERE r." + c.Vector + " @@ ?::tsquery"
	default:
		panic("search: unknown dialect " + string(dialect))
	}
	x.c = c
	return x
}

// Query is one search.
type Query struct {
	// Words are matched each as the start of a word of the key (all of
	// them, in any order): Words' output. None: no search, no rows.
	Words []string
	// Scope is the scope's value, with Config.Scope (race's event id).
	Scope int64
	// Rank orders the rows best match first (SQLite's bm25, PostgreSQL's
	// ts_rank; then the list order) instead of in list order; such pages
	// take Offset, not After. For a few words' starts (type-ahead) the list
	// order is as good and far cheaper: bm25 counts every row of the scope
	// that has each word, 41 ms for "zoe smi" in a scope of 50,000 on
	// SQLite, against 1.8 ms in list order (BenchmarkFind).
	Rank bool
	// After is the list-order value of the last row shown (keyset: the
	// next page starts after it); 0: from the start. Orders are >= 1.
	After int64
	// Offset skips rows: for page numbers kept in old links, and ranked
	// pages. After is cheaper at depth.
	Offset int
	// Limit is the most rows returned (ask one more than a page to know
	// that another follows: db.Trim).
	Limit int
	// Rows is the scope's (or table's) number of rows when the caller knows
	// it (0: not known): with at most ScanFirst, PostgreSQL's list-order
	// search never needs the index.
	Rows int
	// Where is an extra condition on the row r, from the program (never
	// from input), with its parameters in Args: the hook for a distance
	// search (rent: the bounding box of the distance on indexed lat and
	// lng, the exact distance then checked in Go on the rows returned; its
	// Order would be the listing's id, or Rank). Empty: none.
	Where string
	Args  []any
}

// Find runs f over x, reading rows with scan (which reads Config.Columns),
// on q (d: the database, for db.All's fall back from a replica). The words
// are Words' (others are made so: folded, at most MaxWords) and quoted for
// the MATCH or the tsquery; no words is no rows and no query.
func Find[T any](ctx context.Context, d *db.DB, q db.Querier, x *Index, scan func(*sql.Rows) (T, error), f Query) ([]T, error) {
	// Words' own output comes back the same; anything else passed as words
	// is made so (a word of an FTS5 MATCH must be one token).
	f.Words = Words(strings.Join(f.Words, " "), MaxWords)
	if len(f.Words) == 0 || f.Limit <= 0 {
		return nil, nil
	}
	var out []T
	var err error
	if x.dialect == db.SQLite {
		query, args := x.lite(f)
		out, err = db.All(ctx, d, q, scan, query, args...)
	} else {
		out, err = findPostgres(ctx, d, q, x, scan, f)
	}
	if err != nil {
		return nil, fmt.Errorf("search: %s: %w", x.c.Table, err)
	}
	return out, nil
}

// lite is the SQLite statement of f and its arguments.
func (x *Index) lite(f Query) (string, []any) {
	args := []any{x.Match(f.Scope, f.Words)}
	var b strings.Builder
	b.WriteString(x.liteFrom)
	if f.After > 0 {
		if x.c.Order == x.c.ID {
			b.WriteString(" AND f.rowid > ?") // FTS5 seeks there
		} else {
			b.WriteString(" AND " + x.order + " > ?")
		}
		args = append(args, f.After)
	}
	args = x.where(&b, f, args)
	if f.Rank {
		b.WriteString(" ORDER BY f.rank, f.rowid")
	} else {
		b.WriteString(" ORDER BY f.rowid")
	}
	b.WriteString(" LIMIT ? OFFSET ?")
	return b.String(), append(args, f.Limit, f.Offset)
}

// findPostgres runs f on PostgreSQL: ranked, one statement; in list order,
// the next ScanFirst rows of the list checked one by one, which are the
// answer when they hold enough matches (or are all the list), else the GIN
// index's matches, sorted.
func findPostgres[T any](ctx context.Context, d *db.DB, q db.Querier, x *Index, scan func(*sql.Rows) (T, error), f Query) ([]T, error) {
	tsq := x.TSQuery(f.Words)
	var b strings.Builder
	if f.Rank {
		b.WriteString(x.pgRanked)
		args := x.scoped(&b, f, []any{tsq})
		args = x.where(&b, f, args)
		b.WriteString(" ORDER BY ts_rank(r." + x.c.Vector + ", ?::tsquery) DESC, " + x.order + " LIMIT ? OFFSET ?")
		return db.All(ctx, d, q, scan, b.String(), append(args, tsq, f.Limit, f.Offset)...)
	}
	var args []any
	if x.c.Scope != "" {
		args = append(args, f.Scope)
	}
	args = append(args, f.After, tsq)
	b.WriteString(x.pgScan)
	args = x.where(&b, f, args)
	b.WriteString(" ORDER BY " + x.order + " LIMIT ? OFFSET ?")
	out, err := db.All(ctx, d, q, scan, b.String(), append(args, f.Limit, f.Offset)...)
	if err != nil || len(out) == f.Limit || f.Rows > 0 && f.Rows <= ScanFirst {
		return out, err
	}
	b.Reset()
	b.WriteString(x.pgIndex)
	args = x.scoped(&b, f, []any{tsq})
	args = x.where(&b, f, args)
	b.WriteString(" ORDER BY " + x.order + " LIMIT ? OFFSET ?")
	return db.All(ctx, d, q, scan, b.String(), append(args, f.Limit, f.Offset)...)
}

// scoped adds f's scope and keyset conditions on r.
func (x *Index) scoped(b *strings.Builder, f Query, args []any) []any {
	if x.c.Scope != "" {
		b.WriteString(" AND r." + x.c.Scope + " = ?")
		args = append(args, f.Scope)
	}
	if f.After > 0 {
		b.WriteString(" AND " + x.order + " > ?")
		args = append(args, f.After)
	}
	return args
}

// where adds f's extra condition (Query.Where).
func (x *Index) where(b *strings.Builder, f Query, args []any) []any {
	if f.Where == "" {
		return args
	}
	b.WriteString(" AND (" + f.Where + ")")
	return append(args, f.Args...)
}

// Match is the FTS5 query of words within scope (SQLite): each word quoted
// ("" doubles a quote) and matched as a start ("zo"*), in the key column,
// all of them, and the scope's token in its column:
// ev : e12 AND name_key : ("zoe"* AND "smi"*). Operators typed by a user
// (AND, NEAR, -, *, ") are only letters inside the quotes.
func (x *Index) Match(scope int64, words []string) string {
	var m strings.Builder
	if x.c.Scope != "" {
		m.WriteString(x.c.ScopeFTS + " : " + x.c.ScopeTag + strconv.FormatInt(scope, 10) + " AND ")
	}
	m.WriteString(x.c.Key + " : (")
	for i, w := range words {
		if i > 0 {
			m.WriteString(" AND ")
		}
		m.WriteString(`"` + strings.ReplaceAll(w, `"`, `""`) + `"*`)
	}
	m.WriteString(")")
	return m.String()
}

// TSQuery is the tsquery of words (PostgreSQL), for a ?::tsquery
// parameter: each word a quoted lexeme (quotes and backslashes doubled)
// matched as a start ('zo':*), all of them: 'zoe':* & 'smi':*.
func (x *Index) TSQuery(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(w) + "':*"
	}
	return strings.Join(q, " & ")
}
