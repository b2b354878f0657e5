package audio

// Caps on a Vorbis setup header's codebooks, checked before the decoder
// sees it: the decoder allocates from these counts (a few bits can claim
// 2^24 entries). libvorbis's books stay far below them.
const (
	maxVorbisEntries     = 1 << 16 // per codebook
	maxVorbisTotalValues = 1 << 21 // entries and lookup values, all books
)

// vbits reads a Vorbis packet's bits, least significant first.
type vbits struct {
	b   []byte
	pos uint64 // bit position
}

func (r *vbits) left() uint64 { return uint64(len(r.b))*8 - r.pos }

func (r *vbits) read(n uint) (uint32, bool) {
	if uint64(n) > r.left() {
		return 0, false
	}
	var v uint32
	for i := uint(0); i < n; i++ {
		bit := (r.b[r.pos>>3] >> (r.pos & 7)) & 1
		v |= uint32(bit) << i
		r.pos++
	}
	return v, true
}

// checkVorbisSetup walks the codebooks of a setup header and refuses
// counts past the caps or past the packet's end.
func checkVorbisSetup(p []byte) error {
	if len(p) < 8 || p[0] != 5 || string(p[1:7]) != "vorbis" {
		return corrupt("vorbis setup header")
	}
	r := &vbits{b: p[7:]}
	nb, ok := r.read(8)
	if !ok {
		return corrupt("vorbis setup header")
	}
	var total uint64
	for i := uint32(0); i <= nb; i++ {
		sync, ok1 := r.read(24)
		dims, ok2 := r.read(16)
		entries, ok3 := r.read(24)
		ordered, ok4 := r.read(1)
		if !ok1 || !ok2 || !ok3 || !ok4 || sync != 0x564342 || entries == 0 || entries > maxVorbisEntries || dims == 0 {
			return corrupt("vorbis codebook %d: %d entries", i, entries)
		}
		total += uint64(entries)
		if ordered == 0 {
			sparse, ok := r.read(1)
			if !ok {
				return corrupt("vorbis codebook %d", i)
			}
			for e := uint32(0); e < entries; e++ {
				used := uint32(1)
				if sparse == 1 {
					if used, ok = r.read(1); !ok {
						return corrupt("vorbis codebook %d", i)
					}
				}
				if used == 1 {
					if _, ok := r.read(5); !ok {
						return corrupt("vorbis codebook %d", i)
					}
				}
			}
		} else {
			if _, ok := r.read(5); !ok {
				return corrupt("vorbis codebook %d", i)
			}
			for cur := uint32(0); cur < entries; {
				num, ok := r.read(ilog(entries - cur))
				if !ok || num > entries-cur {
					return corrupt("vorbis codebook %d", i)
				}
				cur += num
			}
		}
		lt, ok := r.read(4)
		if !ok || lt > 2 {
			return corrupt("vorbis codebook %d lookup", i)
		}
		if lt == 0 {
			continue
		}
		_, ok1 = r.read(32)
		_, ok2 = r.read(32)
		if !ok1 || !ok2 {
			return corrupt("vorbis codebook %d lookup", i)
		}
		vb, ok1 := r.read(4)
		_, ok2 = r.read(1)
		if !ok1 || !ok2 {
			return corrupt("vorbis codebook %d lookup", i)
		}
		var values uint64
		if lt == 1 {
			values = lookup1(entries, dims)
		} else {
			values = uint64(entries) * uint64(dims)
		}
		total += values
		if total > maxVorbisTotalValues || values*uint64(vb+1) > r.left() {
			return corrupt("vorbis codebook %d: %d values", i, values)
		}
		r.pos += values * uint64(vb+1)
	}
	return nil
}

func ilog(x uint32) uint {
	var n uint
	for x > 0 {
		n++
		x >>= 1
	}
	return n
}

// lookup1 is the largest v with v^dims <= entries.
func lookup1(entries, dims uint32) uint64 {
	if dims > 32 {
		// v^dims <= entries < 2^17 forces v = 1 for large dims.
		return 1
	}
	v := uint64(1)
	for {
		p := uint64(1)
		for i := uint32(0); i < dims && p <= uint64(entries); i++ {
			p *= v + 1
		}
		if p > uint64(entries) {
			return v
		}
		v++
	}
}
