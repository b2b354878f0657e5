package tags

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// Trending counts the uses of each tag in time buckets, in the app's table
// (roar's: roar_tag_uses), shaped
//
//	(tag TEXT, bucket BIGINT, uses BIGINT), PRIMARY KEY (tag, bucket); INDEX (bucket)
//
// where bucket is the time of use (unix ms) divided by the bucket's length.
// A tag's score is its uses decayed by their age: a use HalfLife buckets
// old weighs half a use of this bucket, so recent use weighs more; uses
// older than Window buckets do not count and their rows are deleted by the
// first write of each new bucket (Record), so that the table holds at most
// Window buckets of rows however long the site runs. Top reads the top
// tags in one query; a Board keeps them in memory for pages.
//
// Only what everyone may see should be counted: an app with private posts
// records the tags of its public ones only.
type Trending struct {
	c      TrendConfig
	bucket int64        // the bucket's length in ms
	pruned atomic.Int64 // the bucket whose old rows this process deleted last
	q      struct{ prune, top, forget string }
}

// TrendConfig is an app's trending: its table, the length of a bucket
// (default an hour), how many buckets count (default 48), the half-life
// in buckets (default 6), and the clock.
type TrendConfig struct {
	Table    string
	Bucket   time.Duration
	Window   int
	HalfLife float64
	Now      func() time.Time
}

// Trend is a tag's standing: its uses in the window and its decayed score.
type Trend struct {
	Tag   string
	Uses  int64
	Score float64
}

// NewTrending is the app's trending as c says.
func NewTrending(c TrendConfig) *Trending {
	if c.Bucket <= 0 {
		c.Bucket = time.Hour
	}
	if c.Window <= 0 {
		c.Window = 48
	}
	if c.HalfLife <= 0 {
		c.HalfLife = 6
	}
	t := &Trending{c: c, bucket: c.Bucket.Milliseconds()}
	tb := db.Ident(c.Table)
	t.q.prune = "DELETE FROM " + tb + " WHERE bucket <= ?"
	t.q.forget = "UPDATE " + tb + " SET uses = uses - 1 WHERE bucket = ? AND uses > 0 AND tag IN "
	t.q.top = `SELECT tag, CAST(SUM(uses) AS BIGINT),
			SUM(uses * power(0.5, CAST(? - bucket AS DOUBLE PRECISION) / ?)) AS score
		FROM ` + tb + ` WHERE bucket > ? GROUP BY tag HAVING SUM(uses) > 0
		ORDER BY score DESC, tag LIMIT ?`
	return t
}

// Bucket is the bucket of a use at at.
func (t *Trending) Bucket(at time.Time) int64 { return at.UnixMilli() / t.bucket }

// Record counts one use of each of tags at at, in tx (the post's
// transaction): one statement. The first write of a new bucket in this
// process also deletes the buckets that left the window.
func (t *Trending) Record(ctx context.Context, tx *db.Tx, tags []string, at time.Time) error {
	if len(tags) == 0 {
		return nil
	}
	args := make([]any, 0, 3*len(tags))
	for _, tag := range tags {
		args = append(args, tag, t.Bucket(at), 1)
	}
	if err := t.upsert(ctx, tx, args); err != nil {
		return err
	}
	now := t.Bucket(t.c.Now())
	if now <= t.pruned.Load() {
		return nil
	}
	if _, err := tx.Exec(ctx, t.q.prune, now-int64(t.c.Window)); err != nil {
		return fmt.Errorf("tags: prune trending: %w", err)
	}
	tx.AfterCommit(func() { t.pruned.Store(max(t.pruned.Load(), now)) })
	return nil
}

// upsert adds uses to rows: args are (tag, bucket, uses) triples.
func (t *Trending) upsert(ctx context.Context, tx *db.Tx, args []any) error {
	_, err := tx.Exec(ctx, "INSERT INTO "+t.c.Table+" (tag, bucket, uses) VALUES "+db.Values(len(args)/3, 3)+
		" ON CONFLICT (tag, bucket) DO UPDATE SET uses = "+t.c.Table+".uses + excluded.uses", args...)
	if err != nil {
		return fmt.Errorf("tags: trending: %w", err)
	}
	return nil
}

// Forget takes back a use of each of tags at at (a post removed), in tx.
func (t *Trending) Forget(ctx context.Context, tx *db.Tx, tags []string, at time.Time) error {
	if len(tags) == 0 {
		return nil
	}
	args := []any{t.Bucket(at)}
	for _, tag := range tags {
		args = append(args, tag)
	}
	if _, err := tx.Exec(ctx, t.q.forget+"("+db.Params(len(tags))+")", args...); err != nil {
		return fmt.Errorf("tags: trending: %w", err)
	}
	return nil
}

// Top returns the limit tags with the highest scores now, in one query.
func (t *Trending) Top(ctx context.Context, q db.Querier, limit int) ([]Trend, error) {
	now := t.Bucket(t.c.Now())
	rows, err := q.Query(ctx, t.q.top, now, t.c.HalfLife, now-int64(t.c.Window), limit)
	if err != nil {
		return nil, fmt.Errorf("tags: trending: %w", err)
	}
	defer rows.Close()
	var out []Trend
	for rows.Next() {
		var tr Trend
		if err := rows.Scan(&tr.Tag, &tr.Uses, &tr.Score); err != nil {
			return nil, err
		}
		out = append(out, tr)
	}
	return out, rows.Err()
}

// Tally counts uses in memory for a bulk load (a seed), as Record would
// have: uses outside the window at the time of the load are left out.
type Tally struct {
	t    *Trending
	from int64 // the oldest bucket counted
	uses map[tallyKey]int64
}

type tallyKey struct {
	tag    string
	bucket int64
}

// Tally is a new, empty tally.
func (t *Trending) Tally() *Tally {
	return &Tally{t: t, from: t.Bucket(t.c.Now()) - int64(t.c.Window) + 1, uses: map[tallyKey]int64{}}
}

// Use counts a use of each of tags at at.
func (y *Tally) Use(tags []string, at time.Time) {
	b := y.t.Bucket(at)
	if b < y.from {
		return
	}
	for _, tag := range tags {
		y.uses[tallyKey{tag, b}]++
	}
}

// Save adds what was counted to the table (to the uses already there), in
// one transaction of a few statements.
func (y *Tally) Save(ctx context.Context, d *db.DB) error {
	args := make([]any, 0, 3*len(y.uses))
	for k, n := range y.uses {
		args = append(args, k.tag, k.bucket, n)
	}
	const chunk = 300 // rows a statement: 900 parameters, under SQLite's limit
	return d.WithTx(ctx, func(tx *db.Tx) error {
		for len(args) > 0 {
			n := min(len(args), 3*chunk)
			if err := y.t.upsert(ctx, tx, args[:n]); err != nil {
				return err
			}
			args = args[n:]
		}
		return nil
	})
}
