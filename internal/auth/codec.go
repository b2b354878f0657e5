package auth

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/alexedwards/scs/v2"
)

// sessionCodec encodes a session whose values are all int64 (the user id,
// the password generation and when it was last seen: all tutti keeps in
// one) as a few varints. scs's default, gob, builds a new decoder for
// every session it reads, and that was a tenth of a signed-in request's
// CPU. A session holding anything else, and every session written before
// this codec (gob's bytes never start with codecTag), goes through gob.
type sessionCodec struct{}

// codecTag starts this codec's encoding. scs's gob bytes start with the
// length of the definition of its session type (0x25), always the same.
const codecTag = 0xff

// maxSessionValues bounds what Decode reads from a store.
const maxSessionValues = 64

var errSessionData = errors.New("auth: session data is damaged")

func (sessionCodec) Encode(deadline time.Time, values map[string]any) ([]byte, error) {
	b := make([]byte, 0, 16+16*len(values))
	b = append(b, codecTag)
	b = binary.AppendVarint(b, deadline.UnixNano())
	b = binary.AppendUvarint(b, uint64(len(values)))
	for k, v := range values {
		n, ok := v.(int64)
		if !ok {
			return scs.GobCodec{}.Encode(deadline, values)
		}
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		b = binary.AppendVarint(b, n)
	}
	return b, nil
}

func (sessionCodec) Decode(b []byte) (time.Time, map[string]any, error) {
	if len(b) == 0 || b[0] != codecTag {
		dl, v, err := scs.GobCodec{}.Decode(b)
		if err != nil {
			return dl, v, fmt.Errorf("%w: %w", errSessionData, err)
		}
		return dl, v, nil
	}
	b = b[1:]
	dl, n := binary.Varint(b)
	if n <= 0 {
		return time.Time{}, nil, errSessionData
	}
	b = b[n:]
	count, n := binary.Uvarint(b)
	if n <= 0 || count > maxSessionValues {
		return time.Time{}, nil, errSessionData
	}
	b = b[n:]
	values := make(map[string]any, count)
	for range count {
		kl, n := binary.Uvarint(b)
		if n <= 0 || kl > uint64(len(b)-n) {
			return time.Time{}, nil, errSessionData
		}
		k := string(b[n : n+int(kl)])
		b = b[n+int(kl):]
		v, m := binary.Varint(b)
		if m <= 0 {
			return time.Time{}, nil, errSessionData
		}
		b = b[m:]
		values[k] = v
	}
	if len(b) != 0 {
		return time.Time{}, nil, errSessionData
	}
	return time.Unix(0, dl), values, nil
}
