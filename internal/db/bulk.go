package db

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// CopyFrom inserts rows into table in one go: COPY on PostgreSQL, multi-row
// INSERTs in one transaction on SQLite. It is for bulk loads (seeds), not for
// request paths.
func (db *DB) CopyFrom(ctx context.Context, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	db.queries.Add(1)
	if db.Dialect == Postgres {
		conn, err := db.write.Conn(ctx)
		if err != nil {
			return fmt.Errorf("db: copy %s: %w", table, err)
		}
		defer conn.Close()
		return conn.Raw(func(dc any) error {
			c := dc.(*stdlib.Conn).Conn()
			_, err := c.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
			if err != nil {
				return fmt.Errorf("db: copy %s: %w", table, translate(err))
			}
			return nil
		})
	}
	const maxParams = 30000 // below SQLite's 32766 host parameters
	per := max(1, maxParams/len(cols))
	return db.WithTx(ctx, func(tx *Tx) error {
		for start := 0; start < len(rows); start += per {
			chunk := rows[start:min(start+per, len(rows))]
			args := make([]any, 0, len(chunk)*len(cols))
			for _, r := range chunk {
				args = append(args, r...)
			}
			q := "INSERT INTO " + table + " (" + strings.Join(cols, ",") + ") VALUES " + Values(len(chunk), len(cols))
			if _, err := tx.tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("db: bulk insert %s: %w", table, translate(err))
			}
		}
		return nil
	})
}

// CopyChunks is CopyFrom in chunks of 2,000 rows, calling step after each
// with its size (for a progress bar).
func (db *DB) CopyChunks(ctx context.Context, table string, cols []string, rows [][]any, step func(int)) error {
	const chunk = 2000
	for i := 0; i < len(rows); i += chunk {
		part := rows[i:min(i+chunk, len(rows))]
		if err := db.CopyFrom(ctx, table, cols, part); err != nil {
			return err
		}
		step(len(part))
	}
	return nil
}

// ResetSequences moves the id sequences of tables past their largest id
// after rows were loaded with explicit ids (PostgreSQL; nothing on SQLite).
func (db *DB) ResetSequences(ctx context.Context, tables ...string) error {
	if db.Dialect != Postgres {
		return nil
	}
	for _, t := range tables {
		if _, err := db.write.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('`+t+`', 'id'), (SELECT COALESCE(MAX(id), 1) FROM `+t+`))`); err != nil {
			return fmt.Errorf("db: sequence of %s: %w", t, err)
		}
	}
	return nil
}

// Analyze refreshes PostgreSQL's planner statistics after a bulk load
// (tutti seed), which autovacuum would otherwise leave stale for a minute
// or more, while the load test that follows runs. SQLite keeps no
// statistics unless asked, and its plans were chosen without them: nothing
// to do there.
func (db *DB) Analyze(ctx context.Context) error {
	if db.Dialect != Postgres {
		return nil
	}
	db.queries.Add(1)
	if _, err := db.write.ExecContext(ctx, "ANALYZE"); err != nil {
		return fmt.Errorf("db: analyze: %w", translate(err))
	}
	return nil
}
