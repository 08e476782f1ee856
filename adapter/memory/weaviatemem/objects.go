package weaviatemem

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"

	"github.com/google/uuid"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// idSpace is the UUIDv5 name space of the memory's object ids.
var idSpace = uuid.MustParse("a3a6df8d-e20b-4ad2-ab90-72dd4d8c76e7")

// object is one object of the memory: a context of a word, or a passage.
type object struct {
	id      uuid.UUID
	passage bool
	obs     memory.Observation // a context
	p       memory.Passage     // a passage: its content hash and distinct words
	bad     bool               // an object read that is not the memory's: an id only
}

// contextObject returns the object of word's context ctx (as the memory
// keeps it: cut to its limit).
func contextObject(o memory.Observation) object {
	return object{id: uuid.NewSHA1(idSpace, []byte(kindContext+"\x00"+o.Word+"\x00"+o.Context)), obs: o}
}

// passageObject returns the object of the passage of content hash h and
// words (any order, repeated or not).
func passageObject(h uint64, words []string) object {
	distinct := slices.Compact(slices.Sorted(slices.Values(words)))
	return object{id: uuid.NewSHA1(idSpace, []byte(kindPassage+"\x00"+hashString(h))), passage: true,
		p: memory.Passage{Hash: h, Words: distinct}}
}

func hashString(h uint64) string { return fmt.Sprintf("%016x", h) }

// key is the object's 64-bit key, by which a copy counts it once and which
// it adds to the copy's digest: the two halves of its id (a SHA-1 hash)
// exclusive-or'ed, so that the bits UUIDv5 fixes in each half are mixed with
// hashed bits of the other. Two of n objects share a key with odds about
// n²/2⁶⁵: 3·10⁻⁸ for a million objects in a tenant, 3·10⁻⁴ for 100 million;
// the second of two objects that do is neither counted nor read.
func (o object) key() uint64 {
	return binary.BigEndian.Uint64(o.id[:8]) ^ binary.BigEndian.Uint64(o.id[8:])
}

// lessonObjects returns the objects of the lesson that can change copy:
// the contexts copy admits and the passages it has not counted, each once.
func lessonObjects(copy *memory.Memory, l vectorizer.Lesson) []object {
	var objs []object
	seen := make(map[uuid.UUID]bool)
	add := func(o object) {
		if !seen[o.id] {
			seen[o.id] = true
			objs = append(objs, o)
		}
	}
	for _, o := range copy.Admitted(nil, l.Observations) {
		add(contextObject(o))
	}
	for _, p := range l.Passages {
		if h := memory.PassageHash(p); len(p) > 0 && !copy.Counted(h) {
			add(passageObject(h, p))
		}
	}
	return objs
}

// batchObject is o as POST /v1/batch/objects takes it.
func (o object) batchObject(class, tenant string) map[string]any {
	props := map[string]any{propKind: kindContext, propWord: o.obs.Word, propContext: o.obs.Context}
	if o.passage {
		props = map[string]any{propKind: kindPassage, propHash: hashString(o.p.Hash), propWords: o.p.Words}
	}
	return map[string]any{"class": class, "tenant": tenant, "id": o.id.String(), "properties": props}
}

// decodeObject reads an object Weaviate listed: its id and properties.
func decodeObject(id string, props map[string]any) (object, error) {
	uid, err := uuid.Parse(id)
	if err != nil {
		return object{}, fmt.Errorf("object id %q: %w", id, err)
	}
	str := func(name string) string { s, _ := props[name].(string); return s }
	switch kind := str(propKind); kind {
	case kindContext:
		o := contextObject(memory.Observation{Word: str(propWord), Context: str(propContext)})
		if o.obs.Word == "" || o.obs.Context == "" || o.id != uid {
			return object{}, fmt.Errorf("object %s: not a context with its id", id)
		}
		return o, nil
	case kindPassage:
		h, err := strconv.ParseUint(str(propHash), 16, 64)
		if err != nil || h == 0 {
			return object{}, fmt.Errorf("object %s: passage hash %q: want 16 hex digits", id, str(propHash))
		}
		raw, _ := props[propWords].([]any)
		words := make([]string, 0, len(raw))
		for _, w := range raw {
			if s, ok := w.(string); ok && s != "" {
				words = append(words, s)
			}
		}
		o := passageObject(h, words)
		if o.id != uid {
			return object{}, fmt.Errorf("object %s: not a passage with its id", id)
		}
		return o, nil
	default:
		return object{}, fmt.Errorf("object %s: kind %q: want %s or %s", id, kind, kindContext, kindPassage)
	}
}
