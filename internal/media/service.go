package media

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/jobs"
)

//go:embed migrations
var migrations embed.FS

// Migrations create the media_files table (core, after auth's and jobs').
var Migrations = db.EmbeddedMigrations("media", migrations)

// PrivatePrefix starts the keys of private files: originals, and private
// derivations. files.Handler refuses them; ServePrivate serves them.
const PrivatePrefix = files.PrivatePrefix

// DeriveJob is the job kind that makes an upload's derived files.
const DeriveJob = "media.derive"

// States of a media file.
const (
	Pending = "pending"
	Ready   = "ready"
	Failed  = "failed"
)

// File is a row of media_files: an original (ParentID 0) or a derived file.
type File struct {
	ID       int64
	ParentID int64
	Kind     string
	Variant  string // a derived file's derivation; "" for an original
	Ref      int64  // what it belongs to (a user's id for an avatar, a race's for its logo)
	OwnerID  int64  // who uploaded it (0: nobody recorded)
	Key      string
	Size     int64
	Type     string
	SHA256   string
	Status   string
	Meta     Meta
	Created  time.Time
	// Derived are an original's derived files by variant (filled by Get
	// and given to OnReady).
	Derived map[string]*File
}

// Deps are what the service is built on.
type Deps struct {
	DB    *db.DB
	Files files.Storage
	Jobs  *jobs.Queue
	Log   *slog.Logger
	// TempDir holds uploads being read (not a tmpfs: it would hold them in
	// memory); "": os.TempDir().
	TempDir string
	Now     func() time.Time
	// Objects keeps the files Get read once they are ready or failed (in
	// --cache-bytes); nil: a small cache of the service's own.
	Objects *cache.Objects
}

// Service keeps uploads: the kinds registered by the apps, their originals
// and what the derive job makes of them.
type Service struct {
	db    *db.DB
	files files.Storage
	jobs  *jobs.Queue
	log   *slog.Logger
	tmp   string
	now   func() time.Time
	kept  *cache.Decoded[int64, *File] // Get's files once they no longer change

	mu    sync.Mutex
	kinds map[string]*Kind
	done  chan struct{} // closed and replaced when a derive job ends here
}

// New makes the service and registers its job's handler on d.Jobs.
func New(d Deps) (*Service, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.TempDir == "" {
		d.TempDir = os.TempDir()
	}
	if err := os.MkdirAll(d.TempDir, 0o700); err != nil {
		return nil, fmt.Errorf("media: %w", err)
	}
	s := &Service{db: d.DB, files: d.Files, jobs: d.Jobs, log: d.Log, tmp: d.TempDir, now: d.Now,
		kinds: map[string]*Kind{}, done: make(chan struct{}),
		kept: cache.NewDecoded[int64, *File](d.Objects, "media files", 0, nil)}
	if d.Jobs != nil {
		d.Jobs.Handle(DeriveJob, s.deriveJob)
	}
	return s, nil
}

// Register adds a kind (at start-up, before uploads); a kind registered
// again replaces the first.
func (s *Service) Register(k Kind) {
	if k.Name == "" || k.MaxBytes <= 0 || len(k.Types) == 0 {
		panic("media: a kind needs a name, MaxBytes and Types")
	}
	if k.Dir == "" {
		k.Dir = k.Name
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kinds[k.Name] = &k
}

func (s *Service) kind(name string) *Kind {
	if s == nil || s.files == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.kinds[name]
}

// Storage is where the files are kept.
func (s *Service) Storage() files.Storage { return s.files }

// Save keeps an upload read by ReadForm as the newest original of (its
// kind, ref), uploaded by owner (0: none), and enqueues its derivation. The
// original is stored privately; until the job is done, the app shows what
// it showed before. Nothing is kept when Save fails.
func (s *Service) Save(ctx context.Context, up *Upload, ref, owner int64) (*File, error) {
	if up == nil || up.f == nil {
		return nil, errors.New("media: save: no upload")
	}
	k := up.Kind
	key := files.NewKey(PrivatePrefix+k.Dir, extOf(up.Type))
	if err := s.files.Put(ctx, key, &sized{io.NewSectionReader(up.f, 0, up.Size)}, up.Type); err != nil {
		return nil, fmt.Errorf("media: save %s: %w", k.Name, err)
	}
	f := &File{Kind: k.Name, Ref: ref, OwnerID: owner, Key: key, Size: up.Size, Type: up.Type, SHA256: up.SHA256,
		Status: Pending, Meta: up.Meta, Created: s.now()}
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		var err error
		if f.ID, err = insert(ctx, tx, f); err != nil {
			return err
		}
		_, err = s.jobs.Enqueue(ctx, tx, DeriveJob, deriveArgs{ID: f.ID})
		return err
	})
	if err != nil {
		s.files.Delete(context.WithoutCancel(ctx), key)
		return nil, fmt.Errorf("media: save %s: %w", k.Name, err)
	}
	s.jobs.Notify()
	return f, nil
}

// sized gives a section's remaining length to storages that send a known
// length in one request (files.S3).
type sized struct{ *io.SectionReader }

func (s *sized) Len() int {
	cur, _ := s.Seek(0, io.SeekCurrent)
	return int(s.Size() - cur)
}

// Get is the file id with its derived files, or errs.ErrNotFound. The
// result is shared: read it, never change it.
//
// A file that is ready or failed no longer changes (its key, type, size
// and derived files are fixed by then): it is kept in the object cache
// by id, so that serving it again (an audio's every Range request) costs
// no query. It can only be deleted: an entry kept after that names a
// key that is gone, which storage answers as not found; and the app
// checks first that what the file belongs to (a post) still exists.
func (s *Service) Get(ctx context.Context, id int64) (*File, error) {
	if f, ok := s.kept.Hit(id, 0); ok {
		return f, nil
	}
	f, err := get(ctx, s.db, id)
	if err == nil && f.Status != Pending {
		s.kept.Keep(id, 0, f)
	}
	return f, err
}

// Latest is the newest original of (kind, ref) that is ready, or
// errs.ErrNotFound.
func (s *Service) Latest(ctx context.Context, kind string, ref int64) (*File, error) {
	id, err := latestReady(ctx, s.db, kind, ref)
	if err != nil {
		return nil, err
	}
	return get(ctx, s.db, id)
}

// URL is where browsers fetch a public file (derived); "" for a private one.
func (s *Service) URL(f *File) string {
	if f == nil || isPrivate(f.Key) {
		return ""
	}
	return s.files.URL(f.Key)
}

// Forget deletes every upload of (kind, ref), pending or not, and their
// files (a removed picture, a deleted account).
func (s *Service) Forget(ctx context.Context, kind string, ref int64) error {
	var keys []string
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		var err error
		keys, err = deleteOlder(ctx, tx, kind, ref, 0)
		return err
	})
	if err != nil {
		return fmt.Errorf("media: forget %s %d: %w", kind, ref, err)
	}
	s.deleteKeys(ctx, keys)
	return nil
}

func (s *Service) deleteKeys(ctx context.Context, keys []string) {
	for _, k := range keys {
		if err := s.files.Delete(context.WithoutCancel(ctx), k); err != nil {
			s.log.Warn("media: delete", "key", k, "err", err)
		}
	}
}

// Wait returns once no upload is pending (each derived, or failed), or
// ctx is done: it runs due jobs itself and, while another worker holds
// one, waits for a derive job to end (here, or within a short poll for
// other instances). For tests and tools: a request never waits.
func (s *Service) Wait(ctx context.Context) error {
	for {
		n, err := countPending(ctx, s.db)
		if err != nil || n == 0 {
			return err
		}
		s.mu.Lock()
		done := s.done
		s.mu.Unlock()
		if ran, err := s.jobs.RunOne(ctx); err != nil {
			return err
		} else if ran {
			continue
		}
		select {
		case <-done:
		case <-time.After(50 * time.Millisecond): // a job run by another instance
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *Service) ended() {
	s.mu.Lock()
	close(s.done)
	s.done = make(chan struct{})
	s.mu.Unlock()
}
