package memory

// passageSet holds the content hashes of the most recently counted distinct
// passages, at most a limit of them: when full, adding a hash forgets the
// oldest one (first in, first out).
type passageSet struct {
	has  map[uint64]struct{}
	ring []uint64 // oldest at head once len(ring) is the limit
	head int
}

// contains reports whether h was counted and is still remembered.
func (s *passageSet) contains(h uint64) bool {
	_, ok := s.has[h]
	return ok
}

// add remembers h (not contained), forgetting the oldest hash when limit are
// remembered; it returns the forgotten hash and whether there was one.
func (s *passageSet) add(h uint64, limit int) (old uint64, forgot bool) {
	if s.has == nil {
		s.has = make(map[uint64]struct{})
	}
	s.has[h] = struct{}{}
	for len(s.ring) > limit { // the limit was lowered since the files were written
		delete(s.has, s.ring[s.head])
		s.ring = append(s.ring[:s.head], s.ring[s.head+1:]...)
		s.head %= max(1, len(s.ring))
	}
	if len(s.ring) < limit {
		s.ring = append(s.ring, h)
		return 0, false
	}
	old = s.ring[s.head]
	delete(s.has, old)
	s.ring[s.head] = h
	s.head = (s.head + 1) % len(s.ring)
	return old, true
}

// undo takes back the last add of h, which forgot old if forgot.
func (s *passageSet) undo(h, old uint64, forgot bool) {
	delete(s.has, h)
	if !forgot {
		s.ring = s.ring[:len(s.ring)-1]
		return
	}
	s.head = (s.head - 1 + len(s.ring)) % len(s.ring)
	s.ring[s.head] = old
	s.has[old] = struct{}{}
}

// ordered returns the hashes, oldest first.
func (s *passageSet) ordered() []uint64 {
	out := make([]uint64, 0, len(s.ring))
	return append(append(out, s.ring[s.head:]...), s.ring[:s.head]...)
}

// len returns the number of hashes remembered.
func (s *passageSet) len() int { return len(s.ring) }

// fnv1a continues the 64-bit FNV-1a hash h over s.
func fnv1a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// fnvOffset is FNV-1a's 64-bit offset basis.
const fnvOffset = 14695981039346656037

// mix64 is the splitmix64 finalizer.
func mix64(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 27
	h *= 0x94D049BB133111EB
	h ^= h >> 31
	return h
}

// PassageHash is the content hash that identifies a passage (CountPassages):
// FNV-1a over its tokens, each followed by the byte 0xff (which UTF-8 text
// never holds), then mix64; never 0.
func PassageHash(words []string) uint64 {
	h := uint64(fnvOffset)
	for _, w := range words {
		h = fnv1a(h, w)
		h = fnv1a(h, "\xff")
	}
	return max(1, mix64(h))
}
