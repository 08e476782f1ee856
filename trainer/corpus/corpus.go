package corpus

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Corpus is a whole corpus tokenized once into memory: a dictionary of every
// distinct word with its count, and the text as ids into that dictionary, unit
// by unit. Build it with Read.
type Corpus struct {
	// Words holds every distinct word, in order of first occurrence.
	Words []string
	// Counts[i] is the number of occurrences of Words[i].
	Counts []int64
	// IDs is the corpus as indices into Words, unit after unit.
	IDs []int32
	// Offsets delimits the units: unit i is IDs[Offsets[i]:Offsets[i+1]];
	// len(Offsets) is the number of units + 1 and Offsets[0] is 0.
	Offsets []int64
	// Files lists the files read, in order.
	Files []string
}

// Read tokenizes the corpus at paths once (see ForEachUnit for paths, errors and
// cancellation) and returns it as a Corpus.
func Read(ctx context.Context, paths []string, opts Options) (*Corpus, error) {
	files, err := Files(paths)
	if err != nil {
		return nil, err
	}
	c := &Corpus{Offsets: []int64{0}, Files: files}
	index := make(map[string]int32, 1<<16)
	err = ForEachUnit(ctx, paths, opts, func(u Unit) error {
		for _, w := range u.Tokens {
			id, ok := index[w]
			if !ok {
				if len(c.Words) == math.MaxInt32 {
					return fmt.Errorf("corpus %s line %d: more than %d distinct words", u.File, u.Line, math.MaxInt32)
				}
				id = int32(len(c.Words))
				w = strings.Clone(w) // u.Tokens alias the read buffer
				index[w] = id
				c.Words = append(c.Words, w)
				c.Counts = append(c.Counts, 0)
			}
			c.Counts[id]++
			c.IDs = append(c.IDs, id)
		}
		c.Offsets = append(c.Offsets, int64(len(c.IDs)))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// NumTokens returns the number of tokens in the corpus.
func (c *Corpus) NumTokens() int64 { return int64(len(c.IDs)) }

// Vocab returns the words occurring at least minCount times, sorted by count
// (descending), ties by word (ascending bytewise). minCount below 1 counts as 1.
func (c *Corpus) Vocab(minCount int64) *Vocab {
	order := make([]int32, 0, len(c.Words))
	for i, n := range c.Counts {
		if n >= minCount {
			order = append(order, int32(i))
		}
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := order[a], order[b]
		if c.Counts[x] != c.Counts[y] {
			return c.Counts[x] > c.Counts[y]
		}
		return c.Words[x] < c.Words[y]
	})
	v := &Vocab{
		Words:  make([]string, len(order)),
		Counts: make([]int64, len(order)),
		index:  make(map[string]int32, len(order)),
	}
	for i, id := range order {
		v.Words[i] = c.Words[id]
		v.Counts[i] = c.Counts[id]
		v.index[c.Words[id]] = int32(i)
	}
	return v
}

// Unknown is the id Encode gives words missing from the vocabulary when asked
// to keep them.
const Unknown int32 = -1

// Encode expresses the corpus in the ids of vocabulary v. Words missing from v
// are dropped, or kept as Unknown when keepUnknown is set. Units left without
// any token are dropped.
func (c *Corpus) Encode(v *Vocab, keepUnknown bool) *Encoded {
	remap := make([]int32, len(c.Words))
	n := int64(0)
	for i, w := range c.Words {
		id, ok := v.ID(w)
		if !ok {
			id = Unknown
		}
		remap[i] = id
		if ok || keepUnknown {
			n += c.Counts[i]
		}
	}
	e := &Encoded{IDs: make([]int32, 0, n), Offsets: make([]int64, 1, len(c.Offsets))}
	for u := 1; u < len(c.Offsets); u++ {
		start := len(e.IDs)
		for _, id := range c.IDs[c.Offsets[u-1]:c.Offsets[u]] {
			if m := remap[id]; m != Unknown || keepUnknown {
				e.IDs = append(e.IDs, m)
			}
		}
		if len(e.IDs) > start {
			e.Offsets = append(e.Offsets, int64(len(e.IDs)))
		}
	}
	return e
}

// Vocab is a vocabulary: words with their counts and an index from word to id
// (the position in Words). Build it with Corpus.Vocab or NewVocab; do not
// modify Words afterwards.
type Vocab struct {
	// Words holds the vocabulary; the id of Words[i] is i.
	Words []string
	// Counts holds the corpus count of each word (may be all zero for a
	// vocabulary given without counts).
	Counts []int64

	index map[string]int32
}

// Len returns the number of words.
func (v *Vocab) Len() int { return len(v.Words) }

// ID returns the id of word and whether it is in the vocabulary.
func (v *Vocab) ID(word string) (int32, bool) {
	id, ok := v.index[word]
	return id, ok
}

// Encoded is a corpus as ids of some vocabulary, unit by unit.
type Encoded struct {
	// IDs holds the ids of all units, concatenated; Unknown marks a word
	// missing from the vocabulary when the encoding kept those.
	IDs []int32
	// Offsets delimits the units: unit i is IDs[Offsets[i]:Offsets[i+1]].
	Offsets []int64
}

// NumUnits returns the number of units.
func (e *Encoded) NumUnits() int { return len(e.Offsets) - 1 }

// NumTokens returns the number of ids.
func (e *Encoded) NumTokens() int64 { return int64(len(e.IDs)) }

// Validate checks that Offsets delimit IDs (starting at 0, never decreasing,
// ending at len(IDs)) and that every id is Unknown or below vocabLen.
func (e *Encoded) Validate(vocabLen int) error {
	if len(e.Offsets) == 0 || e.Offsets[0] != 0 {
		return errors.New("offsets must start with 0")
	}
	for i := 1; i < len(e.Offsets); i++ {
		if e.Offsets[i] < e.Offsets[i-1] {
			return fmt.Errorf("offset %d (%d) below offset %d (%d)", i, e.Offsets[i], i-1, e.Offsets[i-1])
		}
	}
	if last := e.Offsets[len(e.Offsets)-1]; last != int64(len(e.IDs)) {
		return fmt.Errorf("last offset %d, want the number of ids %d", last, len(e.IDs))
	}
	for i, id := range e.IDs {
		if id < Unknown || int(id) >= vocabLen {
			return fmt.Errorf("id %d at position %d outside the vocabulary of %d words", id, i, vocabLen)
		}
	}
	return nil
}
