package auth

import (
	"context"
	"fmt"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/media"
)

// An account's picture goes through the core's media path: the settings
// form streams it (media.ReadForm, checked as a picture), its original is
// kept privately and the derive job crops it to a centred square of
// AvatarSize, re-encoded as JPEG (which drops any metadata); once made, the
// account shows it (onAvatarReady). Until then it shows the previous one,
// or the initials.

// AvatarSize is the side of the stored square picture.
const AvatarSize = 256

// AvatarKind is the kind of an account's picture (media_files.kind, ref:
// the user's id).
const AvatarKind = "avatar"

// avatarVariant is the derived square's name.
const avatarVariant = "256"

// avatarKind is the avatar's media kind, decoding within budget; ready
// (nil in tests that only process) tells the account.
func avatarKind(budget *files.ImageBudget, ready func(context.Context, *media.File) error) media.Kind {
	k := media.ImageKind(AvatarKind, "avatars", budget,
		media.Resize(avatarVariant, budget, AvatarSize, AvatarSize, media.Fill, media.JPEG))
	k.MaxBytes = MaxAvatarBytes
	k.OnReady = ready
	return k
}

// onAvatarReady makes a derived picture the account's, deleting the one
// it replaces (media deletes the older uploads; a picture stored before
// media kept them is deleted here).
func (s *Service) onAvatarReady(ctx context.Context, f *media.File) error {
	v := f.Derived[avatarVariant]
	if v == nil {
		return fmt.Errorf("auth: avatar %d ready without its square", f.ID)
	}
	old, err := s.store.setAvatar(ctx, f.Ref, v.Key)
	if errs.KindOf(err) == errs.NotFound { // the account is gone
		return nil
	}
	if err != nil {
		return err
	}
	if old != "" && old != v.Key {
		if err := s.Files.Delete(ctx, old); err != nil {
			s.Log.Warn("delete old avatar", "key", old, "err", err)
		}
	}
	return nil
}

// setAvatar makes key the user's picture, returning the one replaced.
func (s *Store) setAvatar(ctx context.Context, id int64, key string) (old string, err error) {
	defer s.changed() // after the commit
	err = s.db.WithTx(ctx, func(tx *db.Tx) error {
		if err := db.Scan(tx.QueryRow(ctx, "SELECT avatar FROM users WHERE id = ?", id), &old); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE users SET avatar = ?, updated_at = ? WHERE id = ?", key, s.now().Unix(), id)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("auth: set avatar: %w", err)
	}
	return old, nil
}
