package memory

import (
	"cmp"
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
func (m *Memory) Remember(obs []Observation) error {
	if len(obs) == 0 && !m.opts.ReadOnly {
		return nil
	}
	return m.change(func(buf []byte, persist bool) ([]byte, int) {
		n := 0
		for _, o := range obs {
			word, ctx, evicted, ok := m.offerLocked(o)
			if !ok || !persist {
				continue
			}
			for _, w := range evicted {
				var start int
				buf, start = beginRecord(buf)
				buf = appendForget(buf, w)
				endRecord(buf, start)
				n++
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

// offerLocked applies one observation. ok is false when nothing changed
// (rejected, a context already kept, or one whose hash is not among the k smallest).
func (m *Memory) offerLocked(o Observation) (word, ctx string, evicted []string, ok bool) {
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
	id := m.words.find(o.Word)
	var list []ctxRef
	if id >= 0 {
		list = m.words.contexts(id)
		if i, found := m.search(list, h, ctx); found || i >= m.opts.MaxContexts {
			return "", "", nil, false
		}
	}
	grow := int64(len(ctx) + contextOverhead)
	if id < 0 {
		grow += int64(len(o.Word) + wordOverhead)
	} else if len(list) >= m.opts.MaxContexts {
		grow -= int64(list[len(list)-1].n + contextOverhead)
	}
	for m.used+grow > m.opts.MaxBytes || (id < 0 && m.words.len() >= m.opts.MaxWords) {
		w, ok := m.evictLocked(id)
		if !ok {
			m.rejected++
			return "", "", nil, false
		}
		evicted = append(evicted, w)
	}
	m.keepLocked(o.Word, ctx) // copies the bytes: never pins the caller's (request body's) memory
	return o.Word, ctx, evicted, true
}

// search returns where (h, ctx) belongs in list, sorted by (hash, text),
// and whether it is there.
func (m *Memory) search(list []ctxRef, h uint64, ctx string) (int, bool) {
	i, _ := slices.BinarySearchFunc(list, h, func(r ctxRef, h uint64) int { return cmp.Compare(r.hash, h) })
	for ; i < len(list) && list[i].hash == h; i++ { // equal hashes: by content
		if c := cmp.Compare(m.words.context(list[i]), ctx); c >= 0 {
			return i, c == 0
		}
	}
	return i, false
}

// keepLocked inserts ctx into word's bottom-k (creating the word), dropping
// the largest when more than MaxContexts remain. It enforces no budget
// (offerLocked does); replaying a file uses it as it is. The store copies
// word and ctx.
func (m *Memory) keepLocked(word, ctx string) {
	id := m.words.find(word)
	if id < 0 {
		id = m.words.add(word)
		m.used += int64(len(word) + wordOverhead)
	} else {
		m.words.touch(id)
	}
	h := contextHash(m.opts.Seed, ctx)
	i, found := m.search(m.words.contexts(id), h, ctx)
	if found || i >= m.opts.MaxContexts {
		return
	}
	m.words.insert(id, i, h, ctx)
	m.bytes += int64(len(ctx))
	m.used += int64(len(ctx) + contextOverhead)
	m.nctx++
	if list, k := m.words.contexts(id), m.opts.MaxContexts; len(list) > k {
		for _, r := range list[k:] {
			m.bytes -= int64(r.n)
			m.used -= int64(r.n + contextOverhead)
			m.nctx--
		}
		m.words.truncate(id, k)
	}
	m.version++
	m.words.ents[id].version = m.version
}

// evictLocked forgets the least recently changed word other than keep (an
// id, -1: none); ok is false when there is none.
func (m *Memory) evictLocked(keep int32) (word string, ok bool) {
	for id := m.words.head; id >= 0; id = m.words.ents[id].next {
		if id != keep {
			word = m.words.word(id)
			m.forgetID(id)
			m.evicted++
			return word, true
		}
	}
	return "", false
}

// forgetLocked removes word and its contexts.
func (m *Memory) forgetLocked(word string) {
	if id := m.words.find(word); id >= 0 {
		m.forgetID(id)
	}
}

// forgetID removes the word of id and its contexts.
func (m *Memory) forgetID(id int32) {
	list := m.words.contexts(id)
	for _, r := range list {
		m.bytes -= int64(r.n)
		m.used -= int64(r.n + contextOverhead)
	}
	m.nctx -= len(list)
	m.used -= int64(m.words.ents[id].wlen + wordOverhead)
	m.words.remove(id)
	m.version++
}

// shrinkLocked evicts the least recently changed words until the memory fits
// its budget (after a load with lower limits than the files were written with).
func (m *Memory) shrinkLocked() {
	for m.used > m.opts.MaxBytes || m.words.len() > m.opts.MaxWords {
		if _, ok := m.evictLocked(-1); !ok {
			return
		}
	}
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
	id := m.words.find(word)
	if id < 0 {
		return dst, 0
	}
	return m.words.appendTexts(dst, id), m.words.ents[id].version
}
