package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// SeedUsers bulk-inserts n users named seed<id> (ids after the largest
// there is, so that seeding twice adds new names), all with the one
// password, hashed once; step is called with the rows written (a progress
// bar). It returns their ids and usernames. On PostgreSQL the caller resets
// the users sequence when done (db.ResetSequences).
func SeedUsers(ctx context.Context, d *db.DB, n int, password string, now time.Time, step func(int)) ([]int64, []string, error) {
	hash, err := HashPassword(password)
	if err != nil {
		return nil, nil, fmt.Errorf("auth: seed users: %w", err)
	}
	var base int64
	if err := db.Scan(d.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM users`), &base); err != nil {
		return nil, nil, fmt.Errorf("auth: seed users: %w", err)
	}
	ids, names := make([]int64, n), make([]string, n)
	rows := make([][]any, n)
	for i := range n {
		id := base + int64(i) + 1
		name := fmt.Sprintf("seed%d", id)
		email := name + "@seed.tutti.test"
		ids[i], names[i] = id, name
		rows[i] = []any{id, name, name, email, email, hash, fmt.Sprintf("Seed User %d", id), now.Unix(), now.Unix()}
	}
	if err := d.CopyChunks(ctx, "users", []string{"id", "username", "username_key", "email", "email_key",
		"password_hash", "display_name", "created_at", "updated_at"}, rows, step); err != nil {
		return nil, nil, fmt.Errorf("auth: seed users: %w", err)
	}
	return ids, names, nil
}

// PlaceholderUsers creates n accounts for simulated people on a site that
// is serving (a load rehearsal's runners): ids from the table's own
// sequence, so that sign-ups meanwhile are safe (SeedUsers is for an idle
// database), usernames prefix1..prefixN, e-mail addresses at domain, and a
// random password nobody is told, hashed once. It returns their ids.
func PlaceholderUsers(ctx context.Context, d *db.DB, prefix, domain string, n int, now time.Time) ([]int64, error) {
	secret := make([]byte, 32)
	rand.Read(secret)
	hash, err := HashPassword(base64.RawURLEncoding.EncodeToString(secret))
	if err != nil {
		return nil, fmt.Errorf("auth: placeholder users: %w", err)
	}
	const chunk = 200
	ids := make([]int64, 0, n)
	for from := 0; from < n; from += chunk {
		k := min(chunk, n-from)
		args := make([]any, 0, 9*k)
		values := make([]byte, 0, 24*k)
		for i := from; i < from+k; i++ {
			name := fmt.Sprintf("%s%d", prefix, i+1)
			email := name + "@" + domain
			if i > from {
				values = append(values, ',')
			}
			values = append(values, "(?, ?, ?, ?, ?, ?, ?, ?, ?)"...)
			display := fmt.Sprintf("Rehearsal runner %d", i+1)
			args = append(args, name, name, email, email, hash, display, nameKey(name, display), now.Unix(), now.Unix())
		}
		base := len(ids)
		err := d.WithTx(ctx, func(tx *db.Tx) error {
			ids = ids[:base] // a retried transaction starts again
			rows, err := tx.Query(ctx, `INSERT INTO users (username, username_key, email, email_key, password_hash, display_name, name_key, created_at, updated_at)
				VALUES `+string(values)+` RETURNING id`, args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					return err
				}
				ids = append(ids, id)
			}
			return rows.Err()
		})
		if err != nil {
			return nil, fmt.Errorf("auth: placeholder users: %w", err)
		}
	}
	return ids, nil
}

// SeedSessions starts a signed-in session for each of the users, as a
// sign-in would but without the password hash: for `tutti seed`, whose
// simulated people arrive signed in (a rush of 50,000 runners is not a rush
// of 50,000 password checks; they signed in while they waited). It returns
// the tutti_session cookie values, in the order of ids. The sessions live in
// the database, the truth in both modes (Redis, if any, is filled from it).
func SeedSessions(ctx context.Context, d *db.DB, ids []int64, now time.Time) ([]string, error) {
	gens := make(map[int64]int64, len(ids))
	for chunk := range chunks(ids, 500) {
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := d.Query(ctx, "SELECT id, session_gen FROM users WHERE id IN ("+db.Params(len(chunk))+")", args...)
		if err != nil {
			return nil, fmt.Errorf("auth: seed sessions: %w", err)
		}
		for rows.Next() {
			var id, gen int64
			if err := rows.Scan(&id, &gen); err != nil {
				rows.Close()
				return nil, fmt.Errorf("auth: seed sessions: %w", err)
			}
			gens[id] = gen
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("auth: seed sessions: %w", err)
		}
	}
	expiry := now.Add(Lifetime)
	tokens := make([]string, len(ids))
	rows := make([][]any, len(ids))
	for i, id := range ids {
		gen, ok := gens[id]
		if !ok {
			return nil, fmt.Errorf("auth: seed sessions: no user %d", id)
		}
		b := make([]byte, 32) // as scs makes its tokens
		rand.Read(b)
		tokens[i] = base64.RawURLEncoding.EncodeToString(b)
		data, err := sessionCodec{}.Encode(expiry, map[string]any{keyUID: id, keyGen: gen, keySeen: now.Unix()})
		if err != nil {
			return nil, err
		}
		rows[i] = []any{storeKey(tokens[i]), data, expiry.Unix()}
	}
	if err := d.CopyChunks(ctx, "sessions", []string{"token", "data", "expiry"}, rows, func(int) {}); err != nil {
		return nil, fmt.Errorf("auth: seed sessions: %w", err)
	}
	return tokens, nil
}

func chunks(ids []int64, n int) func(func([]int64) bool) {
	return func(yield func([]int64) bool) {
		for len(ids) > 0 {
			k := min(n, len(ids))
			if !yield(ids[:k]) {
				return
			}
			ids = ids[k:]
		}
	}
}
