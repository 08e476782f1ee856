package memory

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Observation is one context sentence seen around one word.
type Observation struct {
	// Word is the token (as the model's tokenizer produced it).
	Word string
	// Context is the raw sentence the word occurred in.
	Context string
}

// entry holds the bottom-k contexts of one word: the at most MaxContexts
// contexts with the smallest (contextHash, context), in that order.
type entry struct {
	word    string
	version uint64   // changes whenever ctx changes
	ctx     []string // at most MaxContexts, sorted by (hashes[i], ctx[i])
	hashes  []uint64
	stamp   int64  // the time of the last change (RememberAt)
	seq     uint64 // the order of the last change
	at      int    // the index in Memory.recent
}

// Per-word and per-context bytes the budget (Options.MaxBytes) counts on top
// of the strings: map and list entries, slice headers, hashes.
const (
	wordOverhead    = 192
	contextOverhead = 48
)

// contextHash is the 64-bit hash that orders a word's contexts: FNV-1a of the
// context's bytes, xor the seed, through the splitmix64 finalizer.
func contextHash(seed uint64, ctx string) uint64 {
	return mix64(fnv1a(fnvOffset, ctx) ^ seed)
}

// Remember offers each observation to its word's bottom-k contexts and
// appends the changes to the log. Observations with an empty, too long or
// invalid UTF-8 word or context are skipped and counted as rejected. When the
// budget is reached, the least recently changed words are evicted to make
// room. With SyncAlways it returns after the changes are on disk.
func (m *Memory) Remember(obs []Observation) error { return m.RememberAt(obs, 0) }

// RememberAt is Remember for observations made at stamp (a time, in any
// unit, the same for every call): the words evicted for the budget are
// those whose last change has the least stamp (of one stamp, the least
// recently changed), and an observation for which no room can be made of
// words changed no later is refused; so observations applied in another
// order leave about the most recent words (not exactly: the byte budget is
// filled greedily, and the ties of one stamp follow the order applied).
// Remember's stamp is 0: the order of the calls.
func (m *Memory) RememberAt(obs []Observation, stamp int64) error {
	if len(obs) == 0 && !m.opts.ReadOnly {
		return nil
	}
	return m.change(func(buf []byte, persist bool) ([]byte, int) {
		n := 0
		for _, o := range obs {
			word, ctx, evicted, ok := m.offerLocked(o, stamp)
			if !persist {
				continue
			}
			for _, w := range evicted { // also those evicted before an observation was refused
				var start int
				buf, start = beginRecord(buf)
				buf = appendForget(buf, w)
				endRecord(buf, start)
				n++
			}
			if !ok {
				continue
			}
			var start int
			buf, start = beginRecord(buf)
			buf = appendKeep(buf, word, ctx)
			endRecord(buf, start)
			n++
		}
		return buf, n
	}, nil) // a kept context applied twice is harmless: records set membership
}

// offerLocked applies one observation, returning the words evicted to make
// room. ok is false when the observation was not kept (rejected, a context
// already kept, one whose hash is not among the k smallest, or no room to be
// made of words not changed later: the words evicted before that are gone).
func (m *Memory) offerLocked(o Observation, stamp int64) (word, ctx string, evicted []string, ok bool) {
	if o.Word == "" || len(o.Word) > m.opts.MaxWordBytes || !utf8.ValidString(o.Word) || !utf8.ValidString(o.Context) {
		m.rejected++
		return "", "", nil, false
	}
	ctx = CutContext(o.Context, o.Word, m.opts.MaxContextBytes)
	if ctx == "" {
		m.rejected++
		return "", "", nil, false
	}
	m.offered++
	h := contextHash(m.opts.Seed, ctx)
	e := m.words[o.Word]
	if e != nil && !e.admits(h, ctx, m.opts.MaxContexts) {
		return "", "", nil, false
	}
	grow, at := int64(len(ctx)+contextOverhead), stamp
	if e != nil {
		at = max(at, e.stamp)
	}
	if e == nil {
		grow += int64(len(o.Word) + wordOverhead)
	} else if len(e.ctx) >= m.opts.MaxContexts {
		grow -= int64(len(e.ctx[len(e.ctx)-1]) + contextOverhead)
	}
	for m.used+grow > m.opts.MaxBytes || (e == nil && len(m.words) >= m.opts.MaxWords) {
		w, ok := m.evictLocked(e, at)
		if !ok {
			m.rejected++
			return "", "", evicted, false
		}
		evicted = append(evicted, w)
	}
	ctx = strings.Clone(ctx) // never pin the caller's (request body's) memory
	m.keepLocked(o.Word, ctx, stamp)
	return o.Word, ctx, evicted, true
}

// Admitted appends to dst the observations of obs that Remember would keep
// now (budget aside), each context cut as Remember cuts it: a valid word and
// context not kept yet whose hash is among the word's MaxContexts smallest.
// A memory holding some of another's observations admits every observation
// the other keeps, so a copy of a memory kept elsewhere sends it only the
// observations that can change it.
func (m *Memory) Admitted(dst, obs []Observation) []Observation {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, o := range obs {
		if o.Word == "" || len(o.Word) > m.opts.MaxWordBytes || !utf8.ValidString(o.Word) || !utf8.ValidString(o.Context) {
			continue
		}
		ctx := CutContext(o.Context, o.Word, m.opts.MaxContextBytes)
		if ctx == "" {
			continue
		}
		if e := m.words[o.Word]; e == nil || e.admits(contextHash(m.opts.Seed, ctx), ctx, m.opts.MaxContexts) {
			dst = append(dst, Observation{Word: o.Word, Context: ctx})
		}
	}
	return dst
}

// admits reports whether (h, ctx) would enter the bottom-k of e.
func (e *entry) admits(h uint64, ctx string, k int) bool {
	i, found := e.search(h, ctx)
	return !found && i < k
}

// search returns where (h, ctx) belongs in e's sorted contexts.
func (e *entry) search(h uint64, ctx string) (int, bool) {
	i, _ := slices.BinarySearch(e.hashes, h)
	for ; i < len(e.hashes) && e.hashes[i] == h; i++ { // equal hashes: by content
		if c := cmp.Compare(e.ctx[i], ctx); c >= 0 {
			return i, c == 0
		}
	}
	return i, false
}

// keepLocked inserts ctx into word's bottom-k (creating the word), dropping
// the largest when more than MaxContexts remain, and marks the word changed
// at stamp. It enforces no budget (offerLocked does); replaying a file uses
// it as it is.
func (m *Memory) keepLocked(word, ctx string, stamp int64) {
	e := m.words[word]
	if e == nil {
		word = strings.Clone(word)
		e = &entry{word: word, at: -1}
		m.words[word] = e
		m.used += int64(len(word) + wordOverhead)
	}
	m.touch(e, stamp)
	h := contextHash(m.opts.Seed, ctx)
	i, found := e.search(h, ctx)
	if found || i >= m.opts.MaxContexts {
		return
	}
	e.ctx = slices.Insert(e.ctx, i, ctx)
	e.hashes = slices.Insert(e.hashes, i, h)
	m.bytes += int64(len(ctx))
	m.used += int64(len(ctx) + contextOverhead)
	m.nctx++
	if k := m.opts.MaxContexts; len(e.ctx) > k {
		for _, c := range e.ctx[k:] {
			m.bytes -= int64(len(c))
			m.used -= int64(len(c) + contextOverhead)
			m.nctx--
		}
		e.ctx, e.hashes = slices.Clip(e.ctx[:k]), e.hashes[:k]
	}
	m.version++
	e.version = m.version
}

// evictLocked forgets the least recently changed word other than keep; ok
// is false when there is none, or when it was changed later than notAfter.
func (m *Memory) evictLocked(keep *entry, notAfter int64) (word string, ok bool) {
	e := m.leastRecent(keep)
	if e == nil || e.stamp > notAfter {
		return "", false
	}
	m.evictCtx += int64(len(e.ctx))
	m.forgetLocked(e.word)
	m.evicted++
	return e.word, true
}

// forgetLocked removes word and its contexts.
func (m *Memory) forgetLocked(word string) {
	e := m.words[word]
	if e == nil {
		return
	}
	for _, c := range e.ctx {
		m.bytes -= int64(len(c))
		m.used -= int64(len(c) + contextOverhead)
	}
	m.nctx -= len(e.ctx)
	m.used -= int64(len(word) + wordOverhead)
	heap.Remove(&m.recent, e.at)
	delete(m.words, word)
	m.version++
}

// shrinkLocked evicts the least recently changed words until the memory fits
// its budget (after a load with lower limits than the files were written with).
func (m *Memory) shrinkLocked() { m.shrinkToLocked(m.opts.MaxBytes, m.opts.MaxWords) }

// loadSlack is how many times its caps (MaxBytes, MaxWords) a memory may hold
// while it loads its files: as long as it holds no more, it reads everything
// and then evicts down to the caps, exactly; past it, it evicts down to
// loadSlack times the caps as it reads, so that loading takes RAM bounded by
// the caps, not by the files' size.
const loadSlack = 4

// shrinkLoadingLocked evicts, while the files load, down to loadSlack times
// the caps when the memory holds more.
func (m *Memory) shrinkLoadingLocked() {
	maxBytes, maxWords := int64(math.MaxInt64), math.MaxInt
	if m.opts.MaxBytes <= math.MaxInt64/loadSlack {
		maxBytes = loadSlack * m.opts.MaxBytes
	}
	if m.opts.MaxWords <= math.MaxInt/loadSlack {
		maxWords = loadSlack * m.opts.MaxWords
	}
	m.evictedLoading = m.shrinkToLocked(maxBytes, maxWords) || m.evictedLoading
}

// shrinkToLocked evicts the least recently changed words until the memory
// holds at most maxBytes (counted against MaxBytes) and maxWords words, and
// reports whether it evicted any.
func (m *Memory) shrinkToLocked(maxBytes int64, maxWords int) (evicted bool) {
	for m.used > maxBytes || len(m.words) > maxWords {
		if _, ok := m.evictLocked(nil, math.MaxInt64); !ok {
			break
		}
		evicted = true
	}
	return evicted
}

// CutContext trims white space and cuts ctx to at most limit bytes around the
// first occurrence of word, at rune and (where possible) word boundaries.
func CutContext(ctx, word string, limit int) string {
	ctx = strings.TrimSpace(ctx)
	if len(ctx) <= limit {
		return ctx
	}
	at := strings.Index(ctx, word)
	if at < 0 {
		if lower := strings.ToLower(ctx); len(lower) == len(ctx) {
			at = strings.Index(lower, word)
		}
	}
	if at < 0 {
		at = 0
	}
	start := max(0, at+len(word)/2-limit/2)
	end := min(len(ctx), start+limit)
	start = max(0, end-limit)
	// Cut at spaces outside the word where there are any.
	if start > 0 && start < at {
		if i := strings.IndexByte(ctx[start:at], ' '); i >= 0 {
			start += i + 1
		}
	}
	if wend := at + len(word); end < len(ctx) && wend < end {
		if i := strings.LastIndexByte(ctx[wend:end], ' '); i >= 0 {
			end = wend + i
		}
	}
	for start < end && !utf8.RuneStart(ctx[start]) {
		start++
	}
	for end > start && end < len(ctx) && !utf8.RuneStart(ctx[end]) {
		end--
	}
	return strings.TrimSpace(ctx[start:end])
}

// Contexts appends the remembered contexts of word to dst, in ascending
// order of their hash. version changes whenever the contexts change; it is 0
// for a word with no contexts.
func (m *Memory) Contexts(dst []string, word string) ([]string, uint64) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	e := m.words[word]
	if e == nil {
		return dst, 0
	}
	return append(dst, e.ctx...), e.version
}
