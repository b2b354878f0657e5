package audio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// ffmpegRate is the rate ffmpeg decodes to for peaks: plenty for a waveform.
const ffmpegRate = 8000

// ffmpegMaxBytes is the largest file peaksFFmpeg copies to a temp file
// when r is not an *os.File.
const ffmpegMaxBytes = 1 << 30

// peaksFFmpeg decodes AAC (and MPEG-2.5 MP3) with Debian's ffmpeg: mono, 8 kHz, 16-bit, read
// from stdout as it comes. The input is the file itself (fd 3) when r is an
// *os.File, else a temp copy; the demuxer is forced (mov, mp3) and only the
// file protocol is allowed, so a hostile file cannot make ffmpeg fetch
// anything.
func peaksFFmpeg(ctx context.Context, r io.ReaderAt, size int64, demuxer string, info Info, acc *peakAcc) error {
	bin, err := exec.LookPath("ffmpeg")
	if err != nil {
		return ErrNoDecoder
	}
	f, ok := r.(*os.File)
	if !ok {
		if size > ffmpegMaxBytes {
			return ErrNoDecoder
		}
		tmp, err := os.CreateTemp("", "tutti-audio-*")
		if err != nil {
			return fmt.Errorf("audio: ffmpeg temp file: %w", err)
		}
		defer os.Remove(tmp.Name())
		defer tmp.Close()
		if _, err := io.Copy(tmp, &ctxReader{ctx, io.NewSectionReader(r, 0, size)}); err != nil {
			return fmt.Errorf("audio: ffmpeg temp file: %w", err)
		}
		f = tmp
	}
	cmd := exec.CommandContext(ctx, bin, "-nostdin", "-hide_banner", "-loglevel", "error",
		"-protocol_whitelist", "file", "-threads", "1", "-f", demuxer, "-i", "file:/dev/fd/3",
		"-map", "0:a:0", "-vn", "-ac", "1", "-ar", fmt.Sprint(ffmpegRate),
		"-t", fmt.Sprint(int(MaxDuration.Seconds())), "-f", "s16le", "pipe:1")
	cmd.ExtraFiles = []*os.File{f}
	var stderr tailBuf
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("audio: ffmpeg: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("audio: ffmpeg: %w", err)
	}
	acc.total = max(1, uint64(info.Duration.Seconds()*ffmpegRate+0.5))
	buf := make([]byte, 32<<10)
	var odd []byte
	for {
		n, rerr := out.Read(buf)
		b := append(odd, buf[:n]...)
		i := 0
		for ; i+1 < len(b); i += 2 {
			acc.add(absf(float32(int16(u16le(b[i:])))) / 32768)
		}
		odd = append(odd[:0], b[i:]...)
		if rerr != nil {
			break
		}
	}
	werr := cmd.Wait()
	if cerr := ctx.Err(); cerr != nil {
		if errors.Is(cerr, context.DeadlineExceeded) && acc.pos > 0 {
			return fmt.Errorf("audio: ffmpeg: %w", cerr)
		}
		return cerr
	}
	if werr != nil {
		if acc.pos > 0 {
			return nil // decoded up to damage
		}
		return corrupt("ffmpeg: %v: %s", werr, bytes.TrimSpace(stderr.b))
	}
	if acc.pos == 0 {
		return corrupt("ffmpeg decoded no audio")
	}
	return nil
}

// tailBuf keeps the last 2 KiB written to it.
type tailBuf struct{ b []byte }

func (t *tailBuf) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = append(t.b[:0], t.b[len(t.b)-2048:]...)
	}
	return len(p), nil
}
