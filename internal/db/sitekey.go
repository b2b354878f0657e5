package db

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// SiteKey is the site's secret key called name, 32 random bytes made by
// the first caller and the same for every instance after.
func (db *DB) SiteKey(ctx context.Context, name string) ([]byte, error) {
	var b [32]byte
	rand.Read(b[:])
	if _, err := db.Exec(ctx, `INSERT INTO site_keys (name, secret) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`,
		name, hex.EncodeToString(b[:])); err != nil {
		return nil, fmt.Errorf("db: site key %s: %w", name, err)
	}
	var s string
	if err := Scan(db.write.QueryRowContext(ctx, db.Rebind(`SELECT secret FROM site_keys WHERE name = ?`), name), &s); err != nil {
		return nil, fmt.Errorf("db: site key %s: %w", name, err)
	}
	return hex.DecodeString(s)
}
