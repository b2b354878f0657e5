package music

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/media"
)

// Private share links (migration 00003, music_share_links): the author of
// a friends-only post may make a link, /music/s/{token}, with which anyone
// sees that one post and its comments, and nothing else of the author's;
// revoking it deletes the row, and the link is not found from that moment
// on, on every instance: the share page is never cached (share_show.go).
// The token is 32 random bytes (256 bits) in base64url: not guessable,
// and the link's only secret. It is kept as it is, not hashed, so that
// the author can copy the link again from the post's page; whoever reads
// the database reads the posts themselves anyway.

// tokenLen is a token's length: 32 bytes in unpadded base64url.
const tokenLen = 43

var (
	errShareRepost = errs.E(errs.Invalid, "A repost cannot be shared by link: share the original.")
	errSharePublic = errs.E(errs.Invalid, "This post is public: its own address works for everyone.")
)

// newToken is a new share token.
func newToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// validToken reports whether s has a token's shape, so that a made-up one
// costs no query.
func validToken(s string) bool {
	if len(s) != tokenLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// ownShareable is post id, in tx, if u wrote it and it may have a link: a
// friends-only post, not a repost. A post u may not see is not found.
func (s *Service) ownShareable(ctx context.Context, tx *db.Tx, u *auth.User, id int64) error {
	r, err := s.store.row(ctx, tx, id)
	if err != nil {
		return notFound(err)
	}
	if r.Author != u.ID {
		ok, err := s.store.sees(ctx, tx, u.ID, r)
		if err != nil {
			return err
		}
		if !ok {
			return errs.ErrNotFound
		}
		return errNotYours
	}
	switch {
	case r.RepostOf != 0:
		return errShareRepost
	case r.Visibility == Public:
		return errSharePublic
	}
	return nil
}

// MakeShareLink returns the token of post id's share link, made now if it
// has none: its author only (see ownShareable).
func (s *Service) MakeShareLink(ctx context.Context, u *auth.User, id int64) (string, error) {
	if u == nil {
		return "", errSignIn
	}
	var token string
	err := s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error {
		if err := s.ownShareable(ctx, tx, u, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO music_share_links (post_id, token, created_at) VALUES (?, ?, ?) ON CONFLICT (post_id) DO NOTHING",
			id, newToken(), s.now().UnixMilli())
		if err != nil {
			return fmt.Errorf("music: share link: %w", err)
		}
		return db.Scan(tx.QueryRow(ctx, "SELECT token FROM music_share_links WHERE post_id = ?", id), &token)
	})
	return token, err
}

// RevokeShareLink deletes post id's share link, if it has one: its author
// only. From then on the link is not found.
func (s *Service) RevokeShareLink(ctx context.Context, u *auth.User, id int64) error {
	if u == nil {
		return errSignIn
	}
	return s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error {
		if err := s.ownShareable(ctx, tx, u, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "DELETE FROM music_share_links WHERE post_id = ?", id)
		return err
	})
}

// ShareLink is the token of post id's share link ("": none), for its
// author's page; anyone else gets "".
func (s *Service) ShareLink(ctx context.Context, u *auth.User, id int64) (string, error) {
	if u == nil {
		return "", nil
	}
	var token string
	err := db.Scan(s.store.db.QueryRow(ctx, `SELECT l.token FROM music_share_links l JOIN music_posts p ON p.id = l.post_id
		WHERE l.post_id = ? AND p.author_id = ?`, id, u.ID), &token)
	if errors.Is(notFound(err), errs.ErrNotFound) {
		return "", nil
	}
	return token, err
}

// sharedPost is the post and its author that token opens (not found: no
// such link, or it was revoked).
func (s *Service) sharedPost(ctx context.Context, token string) (id, author int64, err error) {
	if !validToken(token) {
		return 0, 0, errs.ErrNotFound
	}
	err = db.Scan(s.store.db.QueryRow(ctx, `SELECT l.post_id, p.author_id FROM music_share_links l
		JOIN music_posts p ON p.id = l.post_id WHERE l.token = ?`, token), &id, &author)
	return id, author, notFound(err)
}

// Shared is the post that share link token opens, with its comments, as
// its author sees it: for anyone who has the link, signed in or not.
func (s *Service) Shared(ctx context.Context, token string) (*Thread, error) {
	id, author, err := s.sharedPost(ctx, token)
	if err != nil {
		return nil, err
	}
	p, err := s.store.Post(ctx, author, id)
	if err != nil {
		return nil, err
	}
	p.Liked = false // the author's; the link's holder is someone else
	t := &Thread{Post: p}
	if t.Comments, t.Next, err = s.store.Comments(ctx, 0, id, 0, 50); err != nil {
		return nil, err
	}
	return t, nil
}

// AudioFileVia is the stored file of audio post id for whoever holds
// share link token that opens it (the share page's player); else not
// found.
func (s *Service) AudioFileVia(ctx context.Context, token string, id int64) (*media.File, error) {
	got, author, err := s.sharedPost(ctx, token)
	if err != nil || got != id {
		return nil, orErr(err, errs.ErrNotFound)
	}
	return s.AudioFile(ctx, &auth.User{ID: author}, id)
}

// CanSeeVia reports whether share link token opens post id: what a
// handler of the post's parts (its audio) checks for a visitor who came
// by the link (the share page's URLs for them carry ?s=token).
func (s *Service) CanSeeVia(ctx context.Context, token string, id int64) (bool, error) {
	got, _, err := s.sharedPost(ctx, token)
	if errors.Is(err, errs.ErrNotFound) {
		return false, nil
	}
	return err == nil && got == id, err
}
