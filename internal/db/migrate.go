package db

import (
	"context"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// Migrations are one app's embedded SQL migrations, one folder per dialect
// ("sqlite", "postgres") holding goose files 00001_name.sql, ...
type Migrations struct {
	App string // names the version table: goose_<app>
	FS  fs.FS  // holds sqlite/ and postgres/
}

// EmbeddedMigrations are app's migrations embedded under migrations/ of f
// (its sqlite/ and postgres/ directories).
func EmbeddedMigrations(app string, f fs.FS) Migrations {
	sub, err := fs.Sub(f, "migrations")
	if err != nil {
		panic(err) // embedded at build time
	}
	return Migrations{App: app, FS: sub}
}

// Migrate applies every pending migration of each set, in order, each in its
// own transaction; on PostgreSQL an advisory lock per schema keeps
// concurrent instances from migrating it at once.
func (db *DB) Migrate(ctx context.Context, log *slog.Logger, sets ...Migrations) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dialect, dir := goose.DialectSQLite3, "sqlite"
	if db.Dialect == Postgres {
		dialect, dir = goose.DialectPostgres, "postgres"
	}
	var lockID int64
	if db.Dialect == Postgres {
		// The lock is the schema's: instances migrating one schema wait
		// for each other, sites (or tests) in other schemas of the same
		// database do not.
		var schema string
		if err := db.write.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
			return fmt.Errorf("db: migration lock: %w", err)
		}
		lockID = int64(crc32.ChecksumIEEE([]byte("goose:" + schema)))
	}
	for _, m := range sets {
		sub, err := fs.Sub(m.FS, dir)
		if err != nil {
			return fmt.Errorf("db: migrations of %s: %w", m.App, err)
		}
		opts := []goose.ProviderOption{goose.WithTableName("goose_" + m.App), goose.WithDisableGlobalRegistry(true)}
		if db.Dialect == Postgres {
			locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(lockID))
			if err != nil {
				return fmt.Errorf("db: migration lock: %w", err)
			}
			opts = append(opts, goose.WithSessionLocker(locker))
		}
		p, err := goose.NewProvider(dialect, db.write, sub, opts...)
		if err != nil {
			return fmt.Errorf("db: migrations of %s: %w", m.App, err)
		}
		res, err := p.Up(ctx)
		if err != nil {
			return fmt.Errorf("db: migrate %s: %w", m.App, err)
		}
		for _, r := range res {
			log.Info("migrated", "app", m.App, "version", r.Source.Version, "file", r.Source.Path, "took", r.Duration)
		}
	}
	return nil
}
