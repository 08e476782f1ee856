package weaviatemem

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// idSpace is the UUIDv5 name space of the memory's object ids.
var idSpace = uuid.MustParse("a3a6df8d-e20b-4ad2-ab90-72dd4d8c76e7")

// The bounds of a lesson object: at most maxLessonItems contexts and
// passages, of at most maxLessonBytes of text (words, contexts, passage
// hashes) together, but for an item larger alone, which is an object of
// its own. A context is at most memory.Options.MaxContextBytes (1 KiB by
// default), so an object of contexts alone holds a few hundred of them; a
// larger lesson is split into several objects.
const (
	maxLessonItems = 512
	maxLessonBytes = 256 << 10
)

// object is one object of the memory: a lesson (contexts and passages), or
// one context or one passage (the kinds a memory was written with before
// lessons; still read). An object read that is not the memory's is an id
// without contexts or passages.
type object struct {
	id   uuid.UUID
	kind string
	obs  []memory.Observation // contexts (as the memory keeps them: cut to their limit)
	ps   []memory.Passage     // passages: content hash and distinct words, sorted
	// created is when Weaviate stored it (ms; for a server's own writes,
	// when Weaviate answered): a copy evicts the words of the oldest
	// objects first, whatever order it reads them in.
	created int64
}

// contextObject returns the object of one context.
func contextObject(o memory.Observation) object {
	return object{id: uuid.NewSHA1(idSpace, []byte(kindContext+"\x00"+o.Word+"\x00"+o.Context)), kind: kindContext,
		obs: []memory.Observation{o}}
}

// passageObject returns the object of the passage of content hash h and
// words (any order, repeated or not).
func passageObject(h uint64, words []string) object {
	return object{id: uuid.NewSHA1(idSpace, []byte(kindPassage+"\x00"+hashString(h))), kind: kindPassage,
		ps: []memory.Passage{{Hash: h, Words: distinct(words)}}}
}

func distinct(words []string) []string { return slices.Compact(slices.Sorted(slices.Values(words))) }

// increasing reports whether words are sorted and distinct.
func increasing(words []string) bool {
	for i := 1; i < len(words); i++ {
		if words[i-1] >= words[i] {
			return false
		}
	}
	return true
}

func hashString(h uint64) string { return fmt.Sprintf("%016x", h) }

// lessonObject returns the lesson object of contexts obs and passages ps in
// canonical order: contexts sorted by word and context, passages by hash
// (each words distinct and sorted), each once. Its id is a UUIDv5 of that
// content, so the same contexts and passages make the same object however
// they were sent. obs and ps are sorted in place.
func lessonObject(obs []memory.Observation, ps []memory.Passage) object {
	obs, ps = canonical(obs, ps)
	var b []byte
	str := func(s string) { b = append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	str(kindLesson)
	b = binary.AppendUvarint(b, uint64(len(obs)))
	for _, o := range obs {
		str(o.Word)
		str(o.Context)
	}
	b = binary.AppendUvarint(b, uint64(len(ps)))
	for _, p := range ps {
		b = binary.BigEndian.AppendUint64(b, p.Hash)
		b = binary.AppendUvarint(b, uint64(len(p.Words)))
		for _, w := range p.Words {
			str(w)
		}
	}
	return object{id: uuid.NewSHA1(idSpace, b), kind: kindLesson, obs: obs, ps: ps}
}

// canonical sorts obs and ps as lessonObject orders them and drops repeats
// (a passage's hash identifies it: of two with one hash, the one of words
// first in order is kept).
func canonical(obs []memory.Observation, ps []memory.Passage) ([]memory.Observation, []memory.Passage) {
	slices.SortFunc(obs, func(a, b memory.Observation) int {
		return cmp.Or(strings.Compare(a.Word, b.Word), strings.Compare(a.Context, b.Context))
	})
	obs = slices.Compact(obs)
	for i := range ps {
		if !increasing(ps[i].Words) {
			ps[i].Words = distinct(ps[i].Words)
		}
	}
	slices.SortFunc(ps, func(a, b memory.Passage) int {
		return cmp.Or(cmp.Compare(a.Hash, b.Hash), slices.Compare(a.Words, b.Words))
	})
	ps = slices.CompactFunc(ps, func(a, b memory.Passage) bool { return a.Hash == b.Hash })
	return obs, ps
}

// key is the object's 64-bit key, by which a copy counts it once and which
// it adds to the copy's digest: the two halves of its id (a SHA-1 hash)
// exclusive-or'ed, so that the bits UUIDv5 fixes in each half are mixed with
// hashed bits of the other. Two of n objects share a key with odds about
// n²/2⁶⁵: 3·10⁻⁸ for a million objects in a tenant, 3·10⁻⁴ for 100 million;
// the second of two objects that do is neither counted nor read.
func (o object) key() uint64 {
	return binary.BigEndian.Uint64(o.id[:8]) ^ binary.BigEndian.Uint64(o.id[8:])
}

// idKey returns the key of the object of id as Weaviate lists it; false
// for an id that is not a UUID (such an object's key is another's, see
// Store.decode).
func idKey(id string) (uint64, bool) {
	uid, err := uuid.Parse(id)
	if err != nil {
		return 0, false
	}
	return object{id: uid}.key(), true
}

// teaching is what one write teaches one scope: the contexts its copy
// admits and the passages it has not counted.
type teaching struct {
	obs []memory.Observation
	ps  []memory.Passage
}

// lessonOf returns what the lesson can change in sc's copy: the contexts
// the copy admits and the passages its tally has not counted.
func lessonOf(sc *scope, l vectorizer.Lesson) teaching {
	mem, _ := sc.current()
	t := teaching{obs: mem.Admitted(nil, l.Observations)}
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	for _, p := range l.Passages {
		if h := memory.PassageHash(p); len(p) > 0 && !sc.read.ids.contains(passageKey(h)) {
			t.ps = append(t.ps, memory.Passage{Hash: h, Words: distinct(p)})
		}
	}
	return t
}

// items returns the number of contexts and passages of t.
func (t teaching) items() int { return len(t.obs) + len(t.ps) }

// lessonObjects returns the lesson objects of t (t's slices are sorted in
// place): in canonical order, cut into objects of at most maxLessonItems
// items and maxLessonBytes of text.
func lessonObjects(t teaching) []object {
	obs, ps := canonical(t.obs, t.ps)
	var objs []object
	i, j := 0, 0 // the first context and passage not in an object yet
	for i < len(obs) || j < len(ps) {
		ni, nj, size := i, j, 0
		for ni < len(obs) || nj < len(ps) {
			var n int
			if ni < len(obs) {
				n = len(obs[ni].Word) + len(obs[ni].Context)
			} else {
				n = passageBytes(ps[nj])
			}
			if ni-i+nj-j == maxLessonItems || size > 0 && size+n > maxLessonBytes {
				break
			}
			if size += n; ni < len(obs) {
				ni++
			} else {
				nj++
			}
		}
		objs = append(objs, lessonObject(obs[i:ni:ni], ps[j:nj:nj]))
		i, j = ni, nj
	}
	return objs
}

// passageBytes is the text of a passage in a lesson object.
func passageBytes(p memory.Passage) int {
	n := len(hashString(0)) + 1 + len(strconv.Itoa(len(p.Words)))
	for _, w := range p.Words {
		n += len(w)
	}
	return n
}
