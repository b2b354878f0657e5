package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Demo creates the demo user "demo" with a random password, which it
// returns for the log; if the user exists already it returns "".
func (s *Service) Demo(ctx context.Context) (string, error) {
	if _, err := s.ByUsername(ctx, "demo"); err == nil {
		return "", nil
	} else if !errors.Is(err, errs.ErrNotFound) {
		return "", err
	}
	b := make([]byte, 9)
	rand.Read(b)
	pw := base64.RawURLEncoding.EncodeToString(b)
	u, err := s.Create(ctx, Signup{Username: "demo", Email: "demo@example.com", Password: pw})
	if err != nil {
		return "", err
	}
	_, err = s.store.updateProfile(ctx, u.ID, Profile{DisplayName: "Demo User", Bio: "Trying out tutti."}, nil)
	return pw, err
}
