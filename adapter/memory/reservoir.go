package memory

import (
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

// entry is the reservoir of one word.
type entry struct {
	seen    uint64   // distinct contexts offered so far
	version uint64   // changes whenever ctx changes
	ctx     []string // at most MaxContexts
}

// Remember offers each observation to its word's reservoir and appends the
// changes to the log. Observations with an empty, too long or invalid UTF-8
// word or context are skipped and counted as rejected. With SyncAlways it
// returns after the changes are on disk.
func (m *Memory) Remember(obs []Observation) error {
	if len(obs) == 0 && !m.opts.ReadOnly {
		return nil
	}
	return m.change(func(buf []byte, persist bool) ([]byte, int) {
		n := 0
		for _, o := range obs {
			word, slot, seen, ctx, ok := m.offerLocked(o)
			if !ok || !persist {
				continue
			}
			var start int
			buf, start = beginRecord(buf)
			buf = appendOffer(buf, word, seen, slot, ctx)
			endRecord(buf, start)
			n++
		}
		return buf, n
	}, nil) // an offer applied twice is harmless: a kept context is never offered again
}

// offerLocked applies one observation to the reservoirs. ok is false when
// nothing changed (rejected or a duplicate context).
func (m *Memory) offerLocked(o Observation) (word string, slot int, seen uint64, ctx string, ok bool) {
	if o.Word == "" || len(o.Word) > m.opts.MaxWordBytes || !utf8.ValidString(o.Word) || !utf8.ValidString(o.Context) {
		m.rejected++
		return "", 0, 0, "", false
	}
	ctx = CutContext(o.Context, o.Word, m.opts.MaxContextBytes)
	if ctx == "" {
		m.rejected++
		return "", 0, 0, "", false
	}
	e := m.words[o.Word]
	if e == nil {
		if len(m.words) >= m.opts.MaxWords || m.bytes+int64(len(ctx)) > m.opts.MaxBytes {
			m.rejected++
			return "", 0, 0, "", false
		}
		e = &entry{}
		m.words[strings.Clone(o.Word)] = e
	}
	if slices.Contains(e.ctx, ctx) {
		return "", 0, 0, "", false
	}
	m.offered++
	seen = e.seen + 1
	slot = -1
	if len(e.ctx) < m.opts.MaxContexts {
		if m.bytes+int64(len(ctx)) > m.opts.MaxBytes {
			m.rejected++
			return "", 0, 0, "", false
		}
		slot = len(e.ctx)
	} else if j := pick(m.opts.Seed, o.Word, seen); j < uint64(m.opts.MaxContexts) {
		if grow := len(ctx) - len(e.ctx[j]); grow > 0 && m.bytes+int64(grow) > m.opts.MaxBytes {
			m.rejected++
			return "", 0, 0, "", false
		}
		slot = int(j)
	}
	ctx = strings.Clone(ctx) // never pin the caller's (request body's) memory
	m.setLocked(e, seen, slot, ctx)
	return o.Word, slot, seen, ctx, true
}

// setLocked records that e saw its seen-th context and stores ctx at slot (-1: not kept).
func (m *Memory) setLocked(e *entry, seen uint64, slot int, ctx string) {
	e.seen = seen
	if slot < 0 {
		return
	}
	switch {
	case slot < len(e.ctx):
		m.bytes += int64(len(ctx) - len(e.ctx[slot]))
		e.ctx[slot] = ctx
	case len(e.ctx) < m.opts.MaxContexts:
		// slot == len(e.ctx) when written by this code; a larger slot only
		// appears after MaxContexts was changed between runs.
		e.ctx = append(e.ctx, ctx)
		m.bytes += int64(len(ctx))
		m.nctx++
	default:
		return // MaxContexts was lowered since the record was written
	}
	m.version++
	e.version = m.version
}

// pick is the deterministic random choice of Algorithm R for the n-th offer of word.
func pick(seed uint64, word string, n uint64) uint64 {
	h := uint64(14695981039346656037) ^ seed
	for i := 0; i < len(word); i++ {
		h ^= uint64(word[i])
		h *= 1099511628211
	}
	h ^= n * 0x9E3779B97F4A7C15
	// splitmix64 finalizer
	h ^= h >> 30
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 27
	h *= 0x94D049BB133111EB
	h ^= h >> 31
	return h % n
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

// Contexts appends the remembered contexts of word to dst. version changes
// whenever the contexts change; it is 0 for a word with no contexts.
func (m *Memory) Contexts(dst []string, word string) ([]string, uint64) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	e := m.words[word]
	if e == nil {
		return dst, 0
	}
	return append(dst, e.ctx...), e.version
}
