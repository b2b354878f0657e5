package audio

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// window is the most src holds in memory at once.
const window = 64 << 10

// src reads a file through one reused buffer of at most window bytes and
// checks ctx every so often.
type src struct {
	ctx   context.Context
	r     io.ReaderAt
	size  int64
	buf   []byte
	off   int64 // file offset of buf[0]
	reads int
}

func newSrc(ctx context.Context, r io.ReaderAt, size int64) *src {
	return &src{ctx: ctx, r: r, size: size, off: -1}
}

// at returns n bytes at off (n <= window), valid until the next call. A
// range past the end of the file is ErrCorrupt (truncated).
func (s *src) at(off, n int64) ([]byte, error) {
	if n < 0 || n > window || off < 0 || off > s.size-n {
		return nil, corrupt("read of %d bytes at %d past the end (%d)", n, off, s.size)
	}
	if s.off >= 0 && off >= s.off && off+n <= s.off+int64(len(s.buf)) {
		return s.buf[off-s.off : off-s.off+n], nil
	}
	s.reads++
	if s.reads%64 == 0 {
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
	}
	// Read a whole window (or to the end) so that small reads that follow
	// are served from memory.
	m := min64(window, s.size-off)
	if cap(s.buf) < int(m) {
		s.buf = make([]byte, min64(window, s.size))
	}
	s.buf = s.buf[:m]
	k, err := s.r.ReadAt(s.buf, off)
	if k < int(n) {
		s.off = -1
		if err == nil || errors.Is(err, io.EOF) {
			return nil, corrupt("short read at %d", off)
		}
		return nil, fmt.Errorf("audio: read: %w", err)
	}
	s.buf = s.buf[:k]
	s.off = off
	return s.buf[off-s.off : off-s.off+n], nil
}

// reader is an io.Reader over the whole file, for decoders, that checks
// ctx on every read.
type ctxReader struct {
	ctx context.Context
	r   *io.SectionReader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func (c *ctxReader) Seek(off int64, whence int) (int64, error) { return c.r.Seek(off, whence) }

func u16be(b []byte) uint32 { return uint32(b[0])<<8 | uint32(b[1]) }
func u24be(b []byte) uint32 { return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]) }
func u32be(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
func u64be(b []byte) uint64 { return uint64(u32be(b))<<32 | uint64(u32be(b[4:])) }
func u16le(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 }
func u32le(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func u64le(b []byte) uint64 { return uint64(u32le(b)) | uint64(u32le(b[4:]))<<32 }
