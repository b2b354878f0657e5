package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/search"
)

// Store is the SQL of the users table, the same on both dialects.
type Store struct {
	db  *db.DB
	now func() time.Time
	mem *cache.Memo[int64, account] // embedded mode: accounts read by id kept in memory (cache.Memo)
	// people is the name search of users (people.go); the statements that
	// change a username or a display name write its name_key.
	people *search.Index
}

// account is a user row with what only auth sees.
type account struct {
	User
	hash string
	gen  int64
}

const userCols = "id, username, email, display_name, bio, avatar, created_at, session_gen, password_hash"

type scanner interface{ Scan(dest ...any) error }

func scanAccount(row scanner) (*account, error) {
	var a account
	var created int64
	var roles sql.NullString
	err := row.Scan(&a.ID, &a.Username, &a.Email, &a.DisplayName, &a.Bio, &a.Avatar, &created, &a.gen, &a.hash, &roles)
	if err != nil {
		return nil, err
	}
	a.CreatedAt = time.Unix(created, 0).UTC()
	a.Roles = parseRoles(roles.String)
	return &a, nil
}

// one loads the account that where finds, with its roles, in one statement.
func (s *Store) one(ctx context.Context, where string, args ...any) (*account, error) {
	a, err := scanAccount(s.db.QueryRow(ctx, "SELECT "+userCols+", "+s.rolesCol()+" FROM users WHERE "+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("auth: load user: %w", err)
	}
	return a, nil
}

// byID loads an account by primary key: the one query of a signed-in request.
// A copy each time: callers may change theirs.
func (s *Store) byID(ctx context.Context, id int64) (*account, error) {
	if a, ok := s.mem.Get(id); ok {
		return &a, nil
	}
	g := s.mem.Reading(id)
	a, err := s.one(ctx, "id = ?", id)
	if err == nil {
		s.mem.Keep(g, id, *a)
	}
	return a, err
}

// changed drops the accounts kept in memory after a write of users: all of
// them (writes are rare; some know a name, not an id).
func (s *Store) changed() { s.mem.ForgetAll() }

// bySession is byID for a session that may have been revoked (a Redis
// session store): not found if the session, by its store key, is.
func (s *Store) bySession(ctx context.Context, id int64, key string) (*account, error) {
	return s.one(ctx, "id = ? AND NOT EXISTS (SELECT 1 FROM session_revocations WHERE token = ?)", id, key)
}

// byUsername loads an account by username, case-insensitively.
func (s *Store) byUsername(ctx context.Context, name string) (*account, error) {
	if CheckUsername(name) != "" {
		return nil, errs.ErrNotFound
	}
	return s.one(ctx, "username_key = ?", UsernameKey(name))
}

// byLogin loads an account by username or e-mail (whichever login looks like).
func (s *Store) byLogin(ctx context.Context, login string) (*account, error) {
	if CheckUsername(login) == "" {
		return s.one(ctx, "username_key = ?", UsernameKey(login))
	}
	if CheckEmail(login) == "" {
		return s.one(ctx, "email_key = ?", EmailKey(login))
	}
	return nil, errs.ErrNotFound
}

// create inserts a validated account with its password hash. A username or
// e-mail already taken (in any case) comes back as field errors.
func (s *Store) create(ctx context.Context, in Signup, hash string) (*User, error) {
	u := &User{Username: in.Username, Email: in.Email, CreatedAt: s.now().UTC().Truncate(time.Second)}
	uk, ek := UsernameKey(in.Username), EmailKey(in.Email)
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		rows, err := tx.Query(ctx, "SELECT username_key, email_key FROM users WHERE username_key = ? OR email_key = ?", uk, ek)
		if err != nil {
			return fmt.Errorf("auth: create: %w", err)
		}
		fields := map[string]string{}
		for rows.Next() {
			var k1, k2 string
			if err := rows.Scan(&k1, &k2); err != nil {
				rows.Close()
				return fmt.Errorf("auth: create: %w", err)
			}
			if k1 == uk {
				fields["username"] = msgUsernameTaken
			}
			if k2 == ek {
				fields["email"] = msgEmailTaken
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("auth: create: %w", err)
		}
		if len(fields) > 0 {
			return errs.Fields(fields)
		}
		t := u.CreatedAt.Unix()
		return db.Scan(tx.QueryRow(ctx, `INSERT INTO users (username, username_key, email, email_key, password_hash, name_key, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, u.Username, uk, u.Email, ek, hash, nameKey(u.Username, ""), t, t), &u.ID)
	})
	if errors.Is(err, errs.ErrConflict) { // a concurrent sign-up won the race
		return nil, errs.Fields(map[string]string{"username": msgTakenEither})
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

// The sign-up messages for taken keys. Usernames are public anyway; whether
// an e-mail has an account is not said outright.
const (
	msgUsernameTaken = "That username is taken."
	msgEmailTaken    = "That e-mail address cannot be used for a new account."
	msgTakenEither   = "That username or e-mail address cannot be used."
)

// setPassword stores a new hash and bumps session_gen, which logs out every
// other session; it returns the new generation.
func (s *Store) setPassword(ctx context.Context, id int64, hash string) (int64, error) {
	defer s.changed() // after the commit
	var gen int64
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		return db.Scan(tx.QueryRow(ctx, "UPDATE users SET password_hash = ?, session_gen = session_gen + 1, updated_at = ? WHERE id = ? RETURNING session_gen",
			hash, s.now().Unix(), id), &gen)
	})
	if err != nil {
		return 0, fmt.Errorf("auth: set password: %w", err)
	}
	return gen, nil
}

// updateProfile saves the profile; avatar nil keeps the current one. It
// returns the avatar key that was replaced ("" if none), for deletion.
func (s *Store) updateProfile(ctx context.Context, id int64, p Profile, avatar *string) (old string, err error) {
	defer s.changed() // after the commit
	err = s.db.WithTx(ctx, func(tx *db.Tx) error {
		var username string
		if err := db.Scan(tx.QueryRow(ctx, "SELECT avatar, username FROM users WHERE id = ?", id), &old, &username); err != nil {
			return err
		}
		av := old
		if avatar != nil {
			av = *avatar
		}
		_, err := tx.Exec(ctx, "UPDATE users SET display_name = ?, bio = ?, avatar = ?, name_key = ?, updated_at = ? WHERE id = ?",
			p.DisplayName, p.Bio, av, nameKey(username, p.DisplayName), s.now().Unix(), id)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("auth: update profile: %w", err)
	}
	if avatar == nil || *avatar == old {
		old = ""
	}
	return old, nil
}

// delete removes the account after running every app's hook in the same
// transaction; it returns the avatar key to delete once committed.
func (s *Store) delete(ctx context.Context, id int64, hooks []TxHook) (avatar string, err error) {
	defer s.changed() // after the commit
	err = s.db.WithTx(ctx, func(tx *db.Tx) error {
		if err := db.Scan(tx.QueryRow(ctx, "SELECT avatar FROM users WHERE id = ?", id), &avatar); err != nil {
			return err
		}
		for _, h := range hooks {
			if err := h(ctx, tx, id); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, "DELETE FROM users WHERE id = ?", id)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("auth: delete user %d: %w", id, err)
	}
	return avatar, nil
}
