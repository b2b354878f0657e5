package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/tutti-dev/tutti/internal/errs"
)

// S3 limits.
const (
	// DefaultMaxObjectBytes is the largest file S3.Put stores unless
	// S3Config.MaxObjectBytes says otherwise.
	DefaultMaxObjectBytes = 256 << 20
	// s3PartBytes is the part size of an upload whose length is not known
	// beforehand: the memory such an upload holds (S3's smallest part).
	s3PartBytes = 5 << 20
	// startTimeout bounds the bucket check at start.
	startTimeout = 10 * time.Second
)

// S3Config is where an S3 storage lives, parsed from
// s3://ACCESS:SECRET@host:port/bucket[/prefix]?secure=false&region=R.
type S3Config struct {
	Endpoint  string // host:port
	AccessKey string
	SecretKey string
	Bucket    string
	KeyPrefix string // prepended to every key ("" or "dir/")
	Region    string // "" lets the server say
	Secure    bool   // https (default true)
	// MaxObjectBytes bounds Put; 0: DefaultMaxObjectBytes.
	MaxObjectBytes int64
}

// String describes the storage without its credentials (for logs).
func (c S3Config) String() string {
	scheme := "https"
	if !c.Secure {
		scheme = "http"
	}
	return scheme + "://" + c.Endpoint + "/" + c.Bucket + "/" + c.KeyPrefix
}

// ParseS3URL parses a storage URL. Its errors never quote the URL, which
// holds the secret key.
func ParseS3URL(raw string) (S3Config, error) {
	var c S3Config
	if len(raw) > 2048 {
		return c, errors.New("storage-url: longer than 2048 bytes")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return c, errors.New("storage-url: not a URL (percent-encode special characters of the key and secret)")
	}
	if u.Scheme != "s3" {
		return c, errors.New("storage-url: want s3://ACCESS:SECRET@host:port/bucket")
	}
	if u.User == nil || u.User.Username() == "" {
		return c, errors.New("storage-url: no access key (s3://ACCESS:SECRET@host:port/bucket)")
	}
	c.AccessKey = u.User.Username()
	c.SecretKey, _ = u.User.Password()
	if c.SecretKey == "" {
		return c, errors.New("storage-url: no secret key (s3://ACCESS:SECRET@host:port/bucket)")
	}
	if u.Host == "" {
		return c, errors.New("storage-url: no host")
	}
	if h, p, err := net.SplitHostPort(u.Host); err == nil {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 || h == "" {
			return c, fmt.Errorf("storage-url: bad host:port %q", u.Host)
		}
	}
	c.Endpoint = u.Host
	bucket, prefix, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
	if err := s3utils.CheckValidBucketNameStrict(bucket); err != nil {
		return c, fmt.Errorf("storage-url: bucket %q: %v", bucket, err)
	}
	c.Bucket = bucket
	if prefix = strings.TrimSuffix(prefix, "/"); prefix != "" {
		if !ValidKey(prefix) {
			return c, fmt.Errorf("storage-url: key prefix %q: want segments of letters, digits, '-', '_' and '.'", prefix)
		}
		c.KeyPrefix = prefix + "/"
	}
	c.Secure = true
	for k, vs := range u.Query() {
		v := vs[len(vs)-1]
		switch k {
		case "secure":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return c, fmt.Errorf("storage-url: secure=%q: want true or false", v)
			}
			c.Secure = b
		case "region":
			if len(v) > 64 || strings.ContainsAny(v, " /?#") {
				return c, fmt.Errorf("storage-url: region %q: want at most 64 characters, without spaces, /, ? or #", v)
			}
			c.Region = v
		default:
			return c, fmt.Errorf("storage-url: unknown parameter %q (want secure, region)", k)
		}
	}
	return c, nil
}

// S3 stores files in a bucket of an S3-compatible store (cluster mode) and
// serves them under Prefix through Handler: the server streams them, with
// ranges and conditional requests, so that pages keep one origin (the site's,
// behind nginx) and the store's address, loopback in the local cluster,
// never reaches a browser.
type S3 struct {
	c      *minio.Client
	cfg    S3Config
	Prefix string // URL prefix, e.g. /files/
}

// NewS3 connects to the store and checks that the bucket exists, creating
// it when it does not (and the credentials allow).
func NewS3(ctx context.Context, cfg S3Config, prefix string) (*S3, error) {
	tr, err := minio.DefaultTransport(cfg.Secure)
	if err != nil {
		return nil, fmt.Errorf("files: s3: %w", err)
	}
	tr.ResponseHeaderTimeout = 30 * time.Second
	c, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:     credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:    cfg.Secure,
		Region:    cfg.Region,
		Transport: tr,
	})
	if err != nil {
		return nil, fmt.Errorf("files: s3 %s: %w", cfg, err)
	}
	if cfg.MaxObjectBytes <= 0 {
		cfg.MaxObjectBytes = DefaultMaxObjectBytes
	}
	s := &S3{c: c, cfg: cfg, Prefix: prefix}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	var ok bool
	for {
		// A store that is starting answers 503 for a few seconds; any
		// other error (credentials, address) ends the wait at once.
		ok, err = c.BucketExists(ctx, cfg.Bucket)
		if err == nil || minio.ToErrorResponse(err).StatusCode != http.StatusServiceUnavailable {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
			continue
		}
		break
	}
	if err != nil {
		return nil, fmt.Errorf("files: s3 %s: checking the bucket: %w", cfg, err)
	}
	if !ok {
		if err := c.MakeBucket(ctx, cfg.Bucket, minio.MakeBucketOptions{Region: cfg.Region}); err != nil {
			return nil, fmt.Errorf("files: s3 %s: the bucket does not exist and could not be created (create it, or give the key the right to): %w", cfg, err)
		}
	}
	return s, nil
}

func (s *S3) object(key string) (string, error) {
	if !ValidKey(key) {
		return "", fmt.Errorf("files: bad key %q", key)
	}
	return s.cfg.KeyPrefix + key, nil
}

// Put implements Storage. A reader that knows its length (bytes.Reader,
// strings.Reader, bytes.Buffer) is sent in one request; any other in parts
// of 5 MiB. A file over MaxObjectBytes is refused, and nothing of a failed
// upload stays behind.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, contentType string) error {
	name, err := s.object(key)
	if err != nil {
		return err
	}
	size := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok {
		size = int64(l.Len())
	}
	max := s.cfg.MaxObjectBytes
	if size > max {
		return fmt.Errorf("files: put %s: %d bytes, over the limit of %d", key, size, max)
	}
	opts := minio.PutObjectOptions{ContentType: contentType, PartSize: s3PartBytes}
	if opts.ContentType == "" {
		opts.ContentType = typeOf(key)
	}
	lr := &limitReader{r: ctxReader{ctx, r}, n: max}
	_, err = s.c.PutObject(ctx, s.cfg.Bucket, name, lr, size, opts)
	if err != nil { // minio-go aborts a multipart upload that failed, even when ctx is done
		if lr.over {
			return fmt.Errorf("files: put %s: over the limit of %d bytes", key, max)
		}
		return fmt.Errorf("files: put %s: %w", key, err)
	}
	return nil
}

// limitReader fails, rather than truncates, past n bytes.
type limitReader struct {
	r    io.Reader
	n    int64
	over bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		l.over = true
		return 0, errors.New("files: file too large")
	}
	return n, err
}

// Open implements Storage: one HEAD request now, the bytes when first read
// (from the offset sought, so that a range costs only its bytes).
func (s *S3) Open(ctx context.Context, key string) (File, error) {
	name, err := s.object(key)
	if err != nil {
		return nil, errs.ErrNotFound
	}
	info, err := s.c.StatObject(ctx, s.cfg.Bucket, name, minio.StatObjectOptions{})
	if err != nil {
		if notFound(err) {
			return nil, errs.ErrNotFound
		}
		return nil, fmt.Errorf("files: open %s: %w", key, err)
	}
	return &s3File{ctx: ctx, s: s, name: name, size: info.Size, etag: info.ETag, ctype: typeOf(key), mod: info.LastModified}, nil
}

func notFound(err error) bool {
	switch minio.ToErrorResponse(err).Code {
	case minio.NoSuchKey, "NotFound":
		return true
	}
	return false
}

// Delete implements Storage; deleting a missing key succeeds (S3 says so).
func (s *S3) Delete(ctx context.Context, key string) error {
	name, err := s.object(key)
	if err != nil {
		return err
	}
	if err := s.c.RemoveObject(ctx, s.cfg.Bucket, name, minio.RemoveObjectOptions{}); err != nil && !notFound(err) {
		return fmt.Errorf("files: delete %s: %w", key, err)
	}
	return nil
}

// URL implements Storage: the file is served by this server (Handler).
func (s *S3) URL(key string) string { return s.Prefix + key }

// s3File reads an object from an offset: Seek only moves the offset, and
// the first Read after it opens a ranged GET from there to the end, which
// Close (or the next Seek elsewhere) ends.
type s3File struct {
	ctx   context.Context
	s     *S3
	name  string
	size  int64
	etag  string
	ctype string
	mod   time.Time

	off  int64
	body io.ReadCloser // reading at off, or nil
}

func (f *s3File) ContentType() string { return f.ctype }
func (f *s3File) ModTime() time.Time  { return f.mod }

func (f *s3File) Read(p []byte) (int, error) {
	if f.off >= f.size {
		return 0, io.EOF
	}
	if f.body == nil {
		opts := minio.GetObjectOptions{}
		if err := opts.SetRange(f.off, f.size-1); err != nil {
			return 0, err
		}
		if f.etag != "" {
			opts.SetMatchETag(f.etag) // the object read is the one stat'ed
		}
		body, _, _, err := minio.Core{Client: f.s.c}.GetObject(f.ctx, f.s.cfg.Bucket, f.name, opts)
		if err != nil {
			return 0, fmt.Errorf("files: read %s: %w", f.name, err)
		}
		f.body = body
	}
	n, err := f.body.Read(p)
	f.off += int64(n)
	if err == io.EOF && f.off < f.size {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (f *s3File) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += f.size
	default:
		return 0, errors.New("files: seek: bad whence")
	}
	if offset < 0 {
		return 0, errors.New("files: seek before the start")
	}
	if offset != f.off && f.body != nil {
		f.body.Close()
		f.body = nil
	}
	f.off = offset
	return offset, nil
}

func (f *s3File) Close() error {
	if f.body != nil {
		err := f.body.Close()
		f.body = nil
		return err
	}
	return nil
}

// Compile-time checks.
var (
	_ Storage = (*S3)(nil)
	_ Storage = (*Local)(nil)
)
