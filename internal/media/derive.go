package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/jobs"
)

type deriveArgs struct {
	ID int64 `json:"id"`
}

// deriveJob makes an upload's derived files and tells the app. Each step
// may run again (jobs are delivered at least once): a variant already
// stored is kept, OnReady is an idempotent write.
//
//  1. A forgotten upload, or one no longer pending: nothing to do.
//  2. One superseded by a newer upload of (kind, ref) is deleted.
//  3. Each derivation not yet stored is made from the original and stored;
//     one refusing the file (errs.Invalid), or failing on the job's last
//     attempt, marks the upload failed and tells the app (OnFailed): the
//     upload is never left pending by a job that gave up.
//  4. OnReady tells the app, which shows the new files from now on.
//  5. The older uploads' files are deleted, then, in one transaction, their
//     rows, and the upload is marked ready: once it is, everything the
//     upload changed is done (Wait relies on it).
func (s *Service) deriveJob(ctx context.Context, j *jobs.Job) error {
	defer s.ended()
	var a deriveArgs
	if err := j.Decode(&a); err != nil {
		return err
	}
	f, err := get(ctx, s.db, a.ID)
	if errs.KindOf(err) == errs.NotFound {
		return nil
	}
	if err != nil || f.Status != Pending {
		return err
	}
	k := s.kind(f.Kind)
	if k == nil {
		return jobs.Permanent(fmt.Errorf("media: no kind %q registered", f.Kind))
	}
	if newer, err := hasNewer(ctx, s.db, f.Kind, f.Ref, f.ID); err != nil || newer {
		if err != nil {
			return err
		}
		return s.drop(ctx, f.ID)
	}
	failed, err := s.derive(ctx, k, f)
	if err != nil && j.Attempts >= j.MaxAttempts && ctx.Err() == nil {
		failed, err = true, s.fail(ctx, k, f, err) // the last attempt: give up, and say so
	}
	if err != nil || failed {
		return err
	}
	if f, err = get(ctx, s.db, f.ID); err != nil {
		if errs.KindOf(err) == errs.NotFound { // forgotten meanwhile
			return nil
		}
		return err
	}
	if k.OnReady != nil {
		if err := k.OnReady(ctx, f); err != nil {
			return fmt.Errorf("media: %s %d ready: %w", f.Kind, f.ID, err)
		}
	}
	old, err := olderKeys(ctx, s.db, f.Kind, f.Ref, f.ID)
	if err != nil {
		return err
	}
	s.deleteKeys(ctx, old)
	return s.db.WithTx(ctx, func(tx *db.Tx) error {
		if _, err := deleteOlder(ctx, tx, f.Kind, f.Ref, f.ID); err != nil {
			return err
		}
		_, err := setStatus(ctx, tx, f.ID, Pending, Ready, nil)
		return err
	})
}

// derive makes and stores f's missing variants; failed: one refused the
// file, which is now marked failed.
func (s *Service) derive(ctx context.Context, k *Kind, f *File) (failed bool, err error) {
	missing := false
	for _, d := range k.Derive {
		if f.Derived[d.Name] == nil {
			missing = true
		}
	}
	if !missing {
		return false, nil
	}
	src, cleanup, err := s.openAt(ctx, f.Key)
	if errs.KindOf(err) == errs.NotFound {
		return true, s.fail(ctx, k, f, errors.New("the original is missing"))
	}
	if err != nil {
		return false, err
	}
	defer cleanup()
	for _, d := range k.Derive {
		if f.Derived[d.Name] != nil {
			continue
		}
		out, err := d.Make(ctx, Source{R: src, Size: f.Size, Type: f.Type, Meta: f.Meta})
		if err != nil {
			if errs.KindOf(err) == errs.Invalid {
				return true, s.fail(ctx, k, f, err)
			}
			return false, fmt.Errorf("media: %s %d: %s: %w", f.Kind, f.ID, d.Name, err)
		}
		dir := k.Dir
		if d.Private {
			dir = PrivatePrefix + k.Dir
		}
		key := files.NewKey(dir, out.Ext)
		if err := s.files.Put(ctx, key, bytes.NewReader(out.Data), out.Type); err != nil {
			return false, fmt.Errorf("media: %s %d: %s: %w", f.Kind, f.ID, d.Name, err)
		}
		v := &File{ParentID: f.ID, Kind: f.Kind, Variant: d.Name, Ref: f.Ref, OwnerID: f.OwnerID, Key: key,
			Size: int64(len(out.Data)), Type: out.Type, Status: Ready, Meta: out.Meta, Created: s.now()}
		err = s.db.WithTx(ctx, func(tx *db.Tx) error {
			// The original may have been forgotten meanwhile: the
			// derived row's parent must still exist.
			if _, err := get(ctx, tx, f.ID); err != nil {
				return err
			}
			_, err := insert(ctx, tx, v)
			return err
		})
		if err != nil {
			s.files.Delete(context.WithoutCancel(ctx), key)
			if errs.KindOf(err) == errs.NotFound {
				return true, nil
			}
			return false, err
		}
	}
	return false, nil
}

// fail tells the app that pending upload f failed (k.OnFailed), then
// marks it failed, keeping why in its meta. If the app's write fails, f
// stays pending and the job runs again (or, out of attempts, is dead).
func (s *Service) fail(ctx context.Context, k *Kind, f *File, why error) error {
	s.log.Info("media: upload failed", "kind", f.Kind, "id", f.ID, "why", why)
	meta := Meta{}
	for k, v := range f.Meta {
		meta[k] = v
	}
	meta["error"] = errs.As(why).Message
	if meta["error"] == "" {
		meta["error"] = why.Error()
	}
	if k.OnFailed != nil {
		failed := *f
		failed.Status, failed.Meta = Failed, meta
		if err := k.OnFailed(ctx, &failed); err != nil {
			return fmt.Errorf("media: %s %d failed: %w", f.Kind, f.ID, err)
		}
	}
	return s.db.WithTx(ctx, func(tx *db.Tx) error {
		_, err := setStatus(ctx, tx, f.ID, Pending, Failed, meta)
		return err
	})
}

// drop deletes a superseded upload.
func (s *Service) drop(ctx context.Context, id int64) error {
	var keys []string
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		var err error
		keys, err = deleteOne(ctx, tx, id)
		return err
	})
	if err != nil {
		return err
	}
	s.deleteKeys(ctx, keys)
	return nil
}

// openAt opens a stored file for reading at any offset: directly when the
// storage's file can (Local), else copied to a temporary file first (S3,
// where each seek elsewhere costs a request).
func (s *Service) openAt(ctx context.Context, key string) (io.ReaderAt, func(), error) {
	f, err := s.files.Open(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	if ra, ok := f.(io.ReaderAt); ok {
		return ra, func() { f.Close() }, nil
	}
	defer f.Close()
	tmp, err := os.CreateTemp(s.tmp, "derive-*")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { tmp.Close(); os.Remove(tmp.Name()) }
	if _, err := io.Copy(tmp, files.ContextReader(ctx, f)); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("media: read %s: %w", key, err)
	}
	return tmp, cleanup, nil
}
