package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters: OWASP's recommendation (19 MiB, 2 passes, 1 lane).
const (
	argonMemory  = 19 * 1024 // KiB
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// hashSlots bounds concurrent argon2 runs in the whole process: each holds
// 19 MiB, so a login storm queues here instead of exhausting memory. One a
// core: a hash is pure CPU, and on one core two at once made 21-23 hashes a
// second as one did (22-24), each taking twice as long and holding twice the
// memory. It is the one package-level value in auth, because the bound is
// the process's.
var hashSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

func acquire(ctx context.Context) error {
	select {
	case hashSlots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func release() { <-hashSlots }

// HashPassword hashes pw with argon2id and a random salt, in the PHC string
// format: $argon2id$v=19$m=19456,t=2,p=1$SALT$HASH.
func HashPassword(pw string) (string, error) {
	return hashPassword(context.Background(), pw)
}

// CheckPassword reports whether pw matches hash (from HashPassword), in
// constant time. A malformed hash never matches.
func CheckPassword(hash, pw string) bool {
	ok, _ := checkPassword(context.Background(), hash, pw)
	return ok
}

func hashPassword(ctx context.Context, pw string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("auth: salt: %w", err)
	}
	if err := acquire(ctx); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	release()
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

var errBadHash = errors.New("auth: malformed password hash")

type phc struct {
	memory  uint32
	time    uint32
	threads uint8
	salt    []byte
	key     []byte
}

// parseHash reads a PHC argon2id string, refusing parameters far outside what
// HashPassword writes (a corrupt row must not cost gigabytes).
func parseHash(s string) (phc, error) {
	var p phc
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, errBadHash
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return p, errBadHash
	}
	var th uint32
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.memory, &p.time, &th); err != nil {
		return p, errBadHash
	}
	if p.memory < 8 || p.memory > 256*1024 || p.time < 1 || p.time > 10 || th < 1 || th > 16 {
		return p, errBadHash
	}
	p.threads = uint8(th)
	var err1, err2 error
	p.salt, err1 = base64.RawStdEncoding.DecodeString(parts[4])
	p.key, err2 = base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(p.salt) < 8 || len(p.key) < 16 || len(p.key) > 64 {
		return p, errBadHash
	}
	return p, nil
}

// checkPassword compares pw with hash, waiting for a hash slot (or ctx).
func checkPassword(ctx context.Context, hash, pw string) (bool, error) {
	p, err := parseHash(hash)
	if err != nil {
		return false, err
	}
	if err := acquire(ctx); err != nil {
		return false, err
	}
	key := argon2.IDKey([]byte(pw), p.salt, p.time, p.memory, p.threads, uint32(len(p.key)))
	release()
	return subtle.ConstantTimeCompare(key, p.key) == 1, nil
}
