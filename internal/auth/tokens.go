package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// TokenLifetime is how long a mailed link (password reset, e-mail change) works.
const TokenLifetime = time.Hour

// Token purposes.
const (
	purposeReset = "reset"
	purposeEmail = "email"
)

// newToken returns a random URL-safe token and the hash that is stored.
func newToken() (token, hash string) {
	b := make([]byte, 32)
	rand.Read(b)
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, tokenHash(token)
}

func tokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// validTokenShape rejects what newToken never makes, before any query.
func validTokenShape(token string) bool {
	if len(token) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil
}

// insertToken makes a token for userID in tx; the user's earlier unused
// tokens of the same purpose stop working (only the newest link does), and
// every expired token, anyone's, used or not, goes: a dead link needs no row.
func (s *Store) insertToken(ctx context.Context, tx *db.Tx, userID int64, purpose, email string) (string, error) {
	now := s.now()
	if _, err := tx.Exec(ctx, "DELETE FROM auth_tokens WHERE (user_id = ? AND purpose = ? AND used_at = 0) OR expires_at <= ?",
		userID, purpose, now.Unix()); err != nil {
		return "", fmt.Errorf("auth: token: %w", err)
	}
	token, hash := newToken()
	_, err := tx.Exec(ctx, "INSERT INTO auth_tokens (hash, user_id, purpose, email, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		hash, userID, purpose, email, now.Add(TokenLifetime).Unix(), now.Unix())
	if err != nil {
		return "", fmt.Errorf("auth: token: %w", err)
	}
	return token, nil
}

// tokenRow is what a valid token stands for.
type tokenRow struct {
	UserID int64
	Email  string // the new address (e-mail change)
}

// peekToken checks a token without using it: errs.ErrNotFound if it is
// unknown, used or expired.
func (s *Store) peekToken(ctx context.Context, token, purpose string) (*tokenRow, error) {
	if !validTokenShape(token) {
		return nil, errs.ErrNotFound
	}
	var t tokenRow
	err := db.Scan(s.db.QueryRow(ctx, "SELECT user_id, email FROM auth_tokens WHERE hash = ? AND purpose = ? AND used_at = 0 AND expires_at > ?",
		tokenHash(token), purpose, s.now().Unix()), &t.UserID, &t.Email)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// useToken marks a valid token used in tx, once: a second use, or an
// expired or unknown token, is errs.ErrNotFound.
func (s *Store) useToken(ctx context.Context, tx *db.Tx, token, purpose string) (*tokenRow, error) {
	if !validTokenShape(token) {
		return nil, errs.ErrNotFound
	}
	now := s.now().Unix()
	var t tokenRow
	err := db.Scan(tx.QueryRow(ctx, `UPDATE auth_tokens SET used_at = ?
		WHERE hash = ? AND purpose = ? AND used_at = 0 AND expires_at > ? RETURNING user_id, email`,
		now, tokenHash(token), purpose, now), &t.UserID, &t.Email)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// resetPassword uses a reset token and sets the new password hash, bumping
// session_gen so that every session of the user ends.
func (s *Store) resetPassword(ctx context.Context, token, hash string) (int64, error) {
	defer s.changed() // after the commit
	var uid int64
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		t, err := s.useToken(ctx, tx, token, purposeReset)
		if err != nil {
			return err
		}
		uid = t.UserID
		_, err = tx.Exec(ctx, "UPDATE users SET password_hash = ?, session_gen = session_gen + 1, updated_at = ? WHERE id = ?",
			hash, s.now().Unix(), uid)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("auth: reset password: %w", err)
	}
	return uid, nil
}

// confirmEmail uses an e-mail token and moves the user to its address;
// errs.ErrConflict if another account took the address meanwhile.
func (s *Store) confirmEmail(ctx context.Context, token string) (string, error) {
	defer s.changed() // after the commit
	var email string
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		t, err := s.useToken(ctx, tx, token, purposeEmail)
		if err != nil {
			return err
		}
		email = t.Email
		_, err = tx.Exec(ctx, "UPDATE users SET email = ?, email_key = ?, updated_at = ? WHERE id = ?",
			t.Email, EmailKey(t.Email), s.now().Unix(), t.UserID)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("auth: confirm e-mail: %w", err)
	}
	return email, nil
}
