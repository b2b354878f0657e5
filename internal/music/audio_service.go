package music

import (
	"context"
	"io"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/media/audio"
)

// AudioDraft is a new audio post as typed: its comment (#tags as a link
// post's) and visibility, and what the browser computed of the file
// (Peaks, Duration), kept only when the server cannot decode the file
// (audio.ErrNoDecoder) and never trusted over the file's own duration.
type AudioDraft struct {
	Comment    string
	Visibility string
	Peaks      []byte        // the browser's waveform (0-255 a bar), or nil
	Duration   time.Duration // the browser's measure, or 0
}

// errNoAudio is the audio field's message when no file came.
var errNoAudio = errs.Fields(map[string]string{"audio": "Choose an audio file, or record one."})

// errNoUploads is the audio field's message where files cannot be kept.
var errNoUploads = errs.Fields(map[string]string{"audio": "Audio cannot be uploaded on this server."})

// ShareAudio posts u's audio, read from r (MP3, Ogg Vorbis/Opus,
// WebM/Opus, M4A/AAC, FLAC or WAV, told from its bytes; at most
// MaxAudioBytes and MaxAudioDuration), with d's comment and visibility,
// and returns the new post's id. The file is checked before anything is
// written: bad audio is an errs.Fields error on the field "audio" and
// nothing is stored. The post (kind 'audio', ready = 0) is shown to its
// author only, as processing, until the media.derive job has made its
// waveform; then the kind's OnReady stores peaks and duration_ms and sets
// ready = 1 (a file the job cannot read: OnFailed marks the post failed,
// shown to its author as such). Seeders: run media.Service.Wait (or the job workers) to
// finish the posts.
func (s *Service) ShareAudio(ctx context.Context, u *auth.User, d AudioDraft, r io.Reader) (int64, error) {
	if err := s.canShareAudio(u, &d); err != nil {
		return 0, err
	}
	up, err := s.media.Read(ctx, r, "audio", AudioKind)
	if err != nil {
		return 0, err
	}
	defer up.Close()
	return s.shareUpload(ctx, u, d, up)
}

// ShareUpload is ShareAudio for a file read by media.ReadForm (checked
// already as AudioKind; nil: none chosen, a field error).
func (s *Service) ShareUpload(ctx context.Context, u *auth.User, d AudioDraft, up *media.Upload) (int64, error) {
	if err := s.canShareAudio(u, &d); err != nil {
		return 0, err
	}
	return s.shareUpload(ctx, u, d, up)
}

// canShareAudio checks, before any file is read or kept, that u is signed
// in, that draft d is clean (cleaning it) and that this server keeps
// files.
func (s *Service) canShareAudio(u *auth.User, d *AudioDraft) error {
	if u == nil {
		return errSignIn
	}
	if err := d.clean(); err != nil {
		return err
	}
	if s.media == nil {
		return errNoUploads
	}
	return nil
}

// shareUpload posts the checked draft d with the file up (nil: none
// chosen), within u's posting pace: the post, then its file; nothing is
// kept if either fails.
func (s *Service) shareUpload(ctx context.Context, u *auth.User, d AudioDraft, up *media.Upload) (int64, error) {
	switch {
	case up == nil:
		return 0, errNoAudio
	case up.Kind == nil || up.Kind.Name != AudioKind:
		return 0, errs.E(errs.Internal, "music: an upload of kind %v as audio", up.Kind)
	}
	if err := paced(ctx, s.limits.Posts, u, "posting"); err != nil {
		return 0, err
	}
	var id int64
	err := s.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		id, err = s.store.insert(ctx, tx, newPost{Author: u.ID, Comment: d.Comment, Visibility: d.Visibility,
			At: s.store.now().UnixMilli(), Audio: true, Peaks: d.Peaks, DurationMS: d.Duration.Milliseconds()})
		return err
	})
	if err != nil {
		return 0, err
	}
	f, err := s.media.Save(ctx, up, id, u.ID)
	if err == nil {
		err = s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.setMedia(ctx, tx, id, f.ID) })
	}
	if err != nil { // nothing kept: the post goes
		ctx := context.WithoutCancel(ctx)
		if derr := s.write(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.remove(ctx, tx, id, u.ID, false) }); derr != nil {
			s.log.Warn("music: remove an audio post whose file was not saved", "post", id, "err", derr)
		}
		s.forgetAudio(ctx, id)
		return 0, err
	}
	if d.Visibility == Public {
		s.tagsChanged(d.Comment)
	}
	return id, nil
}

// clean checks the draft's comment and visibility (as Draft.Clean) and
// the browser's peaks (at most audio.MaxPeaks; else dropped: they are a
// stand-in only) and duration.
func (d *AudioDraft) clean() error {
	f := map[string]string{}
	if c, msg := commentField.Clean(d.Comment); msg != "" {
		f["comment"] = msg
	} else {
		d.Comment = c
	}
	switch d.Visibility {
	case "":
		d.Visibility = Public
	case Public, Friends:
	default:
		f["visibility"] = "Choose who sees the post: everyone or your friends."
	}
	if len(d.Peaks) > audio.MaxPeaks {
		d.Peaks = nil
	}
	if d.Duration < 0 || d.Duration > MaxAudioDuration {
		d.Duration = 0
	}
	if len(f) > 0 {
		return errs.Fields(f)
	}
	return nil
}

// forgetAudio deletes audio post id's file and what was made of it.
func (s *Service) forgetAudio(ctx context.Context, id int64) {
	if s.media == nil {
		return
	}
	if err := s.media.Forget(context.WithoutCancel(ctx), AudioKind, id); err != nil {
		s.log.Warn("music: forget an audio's file", "post", id, "err", err)
	}
}

// Play counts a listen of audio post id by u (nil: a visitor), who must
// see it. Listens are counted in the group commit's batches: a crowd
// playing costs a few transactions a second, and changes nothing a
// visitor's cached page shows until its next change.
func (s *Service) Play(ctx context.Context, u *auth.User, id int64) error {
	return s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.play(ctx, tx, id, viewerID(u)) })
}

// AudioFile returns the stored file of audio post id (its original, for a
// repost) if u may see the post; else not found.
func (s *Service) AudioFile(ctx context.Context, u *auth.User, id int64) (*media.File, error) {
	p, err := s.store.Post(ctx, viewerID(u), id)
	if err != nil {
		return nil, err
	}
	t := p.Target()
	if !t.Audio() || t.MediaID == 0 || s.media == nil {
		return nil, errs.ErrNotFound
	}
	return s.media.Get(ctx, t.MediaID)
}

// Audio is the audio posts u may see, newest first.
func (s *Service) Audio(ctx context.Context, u *auth.User, before int64) (*Feed, error) {
	return s.timeline(ctx, u, Query{Audio: true, Before: before})
}
