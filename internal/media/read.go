package media

import (
	"context"
	"io"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Read is ReadForm for a file that does not come in a form (a tool, a
// seeder): r is spooled and checked as kind exactly as a form's file, and
// every problem with it is a field error on field. The caller closes the
// upload.
func (s *Service) Read(ctx context.Context, r io.Reader, field, kind string) (*Upload, error) {
	k := s.kind(kind)
	if k == nil || len(k.Types) == 0 {
		return nil, errs.Fields(map[string]string{field: CannotUpload})
	}
	up, msg, err := spool(ctx, s.tmp, r, k)
	if err != nil {
		return nil, err
	}
	if msg != "" {
		return nil, errs.Fields(map[string]string{field: msg})
	}
	if err := check(ctx, up); err != nil {
		up.Close()
		if e := errs.As(err); e.Kind == errs.Invalid {
			return nil, errs.Fields(map[string]string{field: e.Message})
		}
		return nil, err
	}
	return up, nil
}
