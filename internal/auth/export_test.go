package auth

import (
	"context"
	"io"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/media"
)

// ProcessAvatar checks and converts a picture as an avatar upload and its
// derive job do, within budget, at once: for the tests of package
// auth_test. Refusals are the avatar field's.
func ProcessAvatar(ctx context.Context, budget *files.ImageBudget, r io.Reader) ([]byte, error) {
	out, err := media.Process(ctx, avatarKind(budget, nil), r)
	if e := errs.As(err); err != nil && e.Kind == errs.Invalid {
		return nil, errs.Fields(map[string]string{"avatar": e.Message})
	}
	if err != nil {
		return nil, err
	}
	return out[avatarVariant].Data, nil
}
