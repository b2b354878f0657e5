package db

import (
	"context"
	"database/sql"
)

// All runs query on q and scans every row with scan. When q is the read
// replica (Lagging, AtLeast, AtVersion) and the replica goes away while its
// answer is being read (a failover, a restart: the query had begun, so the
// reader's own fallback could not see it), the query runs again on the
// primary, so a reader's page never fails for the replica.
func All[T any](ctx context.Context, d *DB, q Querier, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	out, err := all(ctx, q, scan, query, args...)
	r, ok := q.(*replica)
	if !ok || err == nil || ctx.Err() != nil || !connectionError(err) {
		return out, err
	}
	r.down()
	r.fellBack.Add(1)
	return all(ctx, d, scan, query, args...)
}

func all[T any](ctx context.Context, q Querier, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
