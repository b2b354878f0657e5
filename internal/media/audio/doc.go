// Package audio reads the audio files that tutti accepts from users: it tells
// their format from their first bytes (Sniff), reads their duration, sample
// rate and channels from the container (Probe), and decodes them into a
// waveform of n peak values (Peaks).
//
// Formats: MP3 (MPEG-1/2/2.5 Layer III, ID3v2 skipped), Ogg Vorbis, Ogg
// Opus, WebM with an Opus track (what Chromium's MediaRecorder records,
// without a Duration element), M4A with AAC (including fragmented MP4),
// FLAC and WAV (integer PCM of 8 to 32 bits and 32/64-bit float). Raw ADTS
// .aac, AMR and .3gp files, and containers with a video track, are refused
// with their own clear errors.
//
// Bounds, so that a small hostile file costs little:
//   - Probe reads headers and, where the container states no duration (WebM
//     recordings, Ogg, fragmented MP4), the block or page headers up to the
//     end; it never reads more than the file, holds at most a 64 KiB window
//     and never allocates from a length in the file without a cap.
//   - A duration is checked against the bytes that carry it: a header that
//     claims hours in a few kilobytes is ErrCorrupt, a length or size past
//     the end of the file is ErrCorrupt (truncated), and anything longer
//     than MaxDuration is ErrTooLong. The caller compares Info.Duration with
//     its own, smaller limit (Info.Check).
//   - Peaks decodes in a stream, keeps n buckets (n <= MaxPeaks), checks
//     ctx between packets and stops after MaxDecodeTime; MP3, FLAC, Vorbis,
//     Opus and WAV are decoded in pure Go (a Vorbis setup header's codebook
//     sizes are checked before the decoder allocates from them). AAC, and
//     MPEG-2.5 MP3 that go-mp3 cannot decode, go to Debian's ffmpeg when it
//     is on PATH (ctx and MaxDecodeTime bound it, its output is read as a
//     stream); without it Peaks returns ErrNoDecoder and the caller keeps
//     the peaks the browser computed.
//
// Errors meant for users are *errs.Error of kind Invalid (ErrUnsupported,
// ErrRawAAC, ErrAMR, ErrVideo, ErrCorrupt, ErrTooLong), possibly wrapped:
// match them with errors.Is.
package audio
