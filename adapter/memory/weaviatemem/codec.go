package weaviatemem

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
)

// batchObject is o as POST /v1/batch/objects takes it. A lesson's passages
// are each its hash, ":" and its number of distinct words; the words
// follow one another, passage after passage, in the property words.
func (o object) batchObject(class, tenant string) map[string]any {
	props := map[string]any{propKind: o.kind}
	switch o.kind {
	case kindContext:
		props[propWord], props[propContext] = o.obs[0].Word, o.obs[0].Context
	case kindPassage:
		props[propHash], props[propWords] = hashString(o.ps[0].Hash), o.ps[0].Words
	default:
		words, contexts := make([]string, len(o.obs)), make([]string, len(o.obs))
		for i, c := range o.obs {
			words[i], contexts[i] = c.Word, c.Context
		}
		passages, pwords := make([]string, len(o.ps)), []string{}
		for i, p := range o.ps {
			passages[i] = hashString(p.Hash) + ":" + strconv.Itoa(len(p.Words))
			pwords = append(pwords, p.Words...)
		}
		props[propContextWords], props[propContexts] = words, contexts
		props[propPassages], props[propWords] = passages, pwords
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
	var o object
	switch kind := str(propKind); kind {
	case kindLesson:
		o, err = decodeLesson(props)
	case kindContext:
		o = contextObject(memory.Observation{Word: str(propWord), Context: str(propContext)})
		if o.obs[0].Word == "" || o.obs[0].Context == "" {
			err = errors.New("a context without its word or text")
		}
	case kindPassage:
		h, perr := strconv.ParseUint(str(propHash), 16, 64)
		if perr != nil || h == 0 {
			return object{}, fmt.Errorf("object %s: passage hash %q: want 16 hex digits", id, str(propHash))
		}
		raw, _ := props[propWords].([]any)
		words := make([]string, 0, len(raw))
		for _, w := range raw {
			if s, ok := w.(string); ok && s != "" {
				words = append(words, s)
			}
		}
		o = passageObject(h, words)
	default:
		return object{}, fmt.Errorf("object %s: kind %q: want %s, %s or %s", id, kind, kindLesson, kindContext, kindPassage)
	}
	if err != nil {
		return object{}, fmt.Errorf("object %s: %w", id, err)
	}
	if o.id != uid {
		return object{}, fmt.Errorf("object %s: not a %s with its id", id, o.kind)
	}
	return o, nil
}

// decodeLesson reads the contexts and passages of a lesson object.
func decodeLesson(props map[string]any) (object, error) {
	words, err1 := texts(props, propContextWords)
	contexts, err2 := texts(props, propContexts)
	passages, err3 := texts(props, propPassages)
	pwords, err4 := texts(props, propWords)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return object{}, err
	}
	if len(words) != len(contexts) {
		return object{}, fmt.Errorf("%d context words for %d contexts", len(words), len(contexts))
	}
	obs := make([]memory.Observation, len(words))
	for i := range words {
		if words[i] == "" || contexts[i] == "" {
			return object{}, fmt.Errorf("context %d without its word or text", i)
		}
		obs[i] = memory.Observation{Word: words[i], Context: contexts[i]}
	}
	ps := make([]memory.Passage, len(passages))
	for i, p := range passages {
		hs, ns, _ := strings.Cut(p, ":")
		h, err := strconv.ParseUint(hs, 16, 64)
		n, nerr := strconv.Atoi(ns)
		if err != nil || h == 0 || len(hs) != 16 || nerr != nil || n < 1 || n > len(pwords) {
			return object{}, fmt.Errorf("passage %d: %q: want its 16 hex digit hash, \":\" and its number of words "+
				"(at least 1, of the %d left)", i, p, len(pwords))
		}
		if j := slices.Index(pwords[:n], ""); j >= 0 {
			return object{}, fmt.Errorf("passage %d: word %d is empty", i, j)
		}
		ps[i], pwords = memory.Passage{Hash: h, Words: pwords[:n:n]}, pwords[n:]
	}
	if len(pwords) > 0 {
		return object{}, fmt.Errorf("%d words of no passage", len(pwords))
	}
	return lessonObject(obs, ps), nil
}

// texts returns the text[] property name of props as JSON decodes it
// (absent or null: none).
func texts(props map[string]any, name string) ([]string, error) {
	v := props[name]
	if v == nil {
		return nil, nil
	}
	raw, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("property %s is %T, not a text[]", name, v)
	}
	out := make([]string, len(raw))
	for i, r := range raw {
		s, ok := r.(string)
		if !ok {
			return nil, fmt.Errorf("property %s: element %d is %T, not a text", name, i, r)
		}
		out[i] = s
	}
	return out, nil
}
