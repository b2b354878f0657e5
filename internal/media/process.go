package media

import (
	"context"
	"io"
	"os"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Process checks the file r as kind k would be at upload (size, sniffed
// type, Check) and makes its derivations at once, in the caller, storing
// nothing: for tools, seeding and tests. An upload's derivations are made
// by the job. A refusal is errs.Invalid with the field's message.
func Process(ctx context.Context, k Kind, r io.Reader) (map[string]Output, error) {
	up, msg, err := spool(ctx, os.TempDir(), r, &k)
	if err != nil {
		return nil, err
	}
	if msg != "" {
		return nil, errs.E(errs.Invalid, "%s", msg)
	}
	defer up.Close()
	if err := check(ctx, up); err != nil {
		return nil, err
	}
	out := map[string]Output{}
	for _, d := range k.Derive {
		o, err := d.Make(ctx, Source{R: up.f, Size: up.Size, Type: up.Type, Meta: up.Meta})
		if err != nil {
			return nil, err
		}
		out[d.Name] = o
	}
	return out, nil
}
