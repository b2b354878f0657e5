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
