// Package dataset reads the evaluation data sets: word-similarity pairs,
// CHIMERAS, definitional nonces, word lists and the NRC lexicon, the
// SemEval-2015 10E sentiment lexicon, and retrieval documents and queries
// (JSONL). Every loader names the file and line of a malformed input, and
// refuses a line longer than MaxLineBytes.
package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"github.com/text2vec-am/text2vec-am/internal/lines"
	"github.com/text2vec-am/text2vec-am/model"
)

// MaxLineBytes bounds one line of an evaluation data file (its bytes
// without the line ending, after gzip decompression): 1 MiB, far above any
// line of the data sets (a CHIMERAS line, a retrieval document), so that a
// file without line breaks cannot make a loader hold it whole. ForEachLine
// reads a longer line no further and fails with ErrLineTooLong.
const MaxLineBytes = 1 << 20

// ErrLineTooLong is wrapped by the error of a line longer than MaxLineBytes,
// which names the file, the line and the limit.
var ErrLineTooLong = lines.ErrTooLong

// ForEachLine calls fn with every line of the file at path (1-based line
// number, line without its trailing "\n" or "\r\n"). Gzip files (by their magic
// bytes) are decompressed. A line longer than MaxLineBytes is an error
// wrapping ErrLineTooLong; memory stays bounded by that limit. An error from
// fn stops the scan and is returned as is. Only a regular file is read
// (model.OpenRegular: a FIFO or a device is refused without blocking).
func ForEachLine(path string, fn func(lineNo int, line string) error) error {
	f, _, err := model.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return ForEachLineOf(f, path, fn)
}

// ForEachLineOf calls fn with every line of r, the content of the file
// name (named in errors), as ForEachLine does for a path: for a file the
// caller opened and checked itself. It does not close r.
func ForEachLineOf(r io.Reader, name string, fn func(lineNo int, line string) error) error {
	zr, closeZ, err := model.MaybeGunzip(r, 1<<16)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer closeZ()
	return scanLines(zr, name, fn)
}

// scanLines calls fn with every line of r as ForEachLine does; name (the
// file) is for error messages.
func scanLines(r io.Reader, name string, fn func(lineNo int, line string) error) error {
	return lines.ForEach(r, name, MaxLineBytes, "an evaluation data line", fn)
}

// FixUTF8 returns s with every byte that is not part of valid UTF-8 decoded
// as Windows-1252 (the encoding the stray bytes of CHIMERAS and the Hu & Liu
// lexicon come from: 0xE9 is é, 0x92 is ’).
func FixUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(charmap.Windows1252.DecodeByte(s[i]))
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// WordPair is one line of a word-similarity file: two words and a gold score.
type WordPair struct {
	A, B  string
	Score float64
}

// LoadWordPairs reads a word-similarity file: one "word1 word2 score" per
// line, separated by tabs or spaces. Blank lines and lines starting with #
// are skipped; any other malformed line is an error naming file and line.
func LoadWordPairs(path string) ([]WordPair, error) {
	var pairs []WordPair
	err := ForEachLine(path, func(n int, line string) error {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			return nil
		}
		f := strings.Fields(FixUTF8(line))
		if len(f) != 3 {
			return fmt.Errorf("%s:%d: want 3 fields (word1 word2 score), got %d", path, n, len(f))
		}
		s, err := parseNumber(path, n, "score", f[2])
		if err != nil {
			return err
		}
		pairs = append(pairs, WordPair{A: f[0], B: f[1], Score: s})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load word pairs: %w", err)
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("load word pairs: %s: no pairs", path)
	}
	return pairs, nil
}

// ChimeraInstance is one CHIMERAS line: the nonce's sentences (the nonce
// written ___), the probe words and their human similarity ratings.
type ChimeraInstance struct {
	ID        string
	Sentences []string
	Probes    []string
	Ratings   []float64
}

// NonceMarker is how CHIMERAS writes the made-up word in its sentences.
const NonceMarker = "___"

// LoadChimeras reads a CHIMERAS file (nonce2vec's tokenised format: id TAB
// sentences joined by " @@ " TAB comma-separated probes TAB comma-separated
// ratings). Bytes that are not valid UTF-8 are decoded as Windows-1252.
func LoadChimeras(path string) ([]ChimeraInstance, error) {
	var out []ChimeraInstance
	err := ForEachLine(path, func(n int, line string) error {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		f := strings.Split(FixUTF8(line), "\t")
		if len(f) != 4 {
			return fmt.Errorf("%s:%d: want 4 tab-separated fields (id, sentences, probes, ratings), got %d", path, n, len(f))
		}
		inst := ChimeraInstance{ID: strings.TrimSpace(f[0])}
		for _, s := range strings.Split(f[1], "@@") {
			if s = strings.TrimSpace(s); s != "" {
				inst.Sentences = append(inst.Sentences, s)
			}
		}
		if len(inst.Sentences) == 0 {
			return fmt.Errorf("%s:%d: no sentences", path, n)
		}
		for _, p := range strings.Split(f[2], ",") {
			inst.Probes = append(inst.Probes, strings.TrimSpace(p))
		}
		for _, r := range strings.Split(f[3], ",") {
			v, err := parseNumber(path, n, "rating", r)
			if err != nil {
				return err
			}
			inst.Ratings = append(inst.Ratings, v)
		}
		if len(inst.Probes) != len(inst.Ratings) {
			return fmt.Errorf("%s:%d: %d probes but %d ratings", path, n, len(inst.Probes), len(inst.Ratings))
		}
		out = append(out, inst)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load chimeras: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("load chimeras: %s: no instances", path)
	}
	return out, nil
}

// LoadWordList reads one word per line (surrounding space trimmed), skipping
// blank lines and comment lines starting with ";" (the Hu & Liu lexicon's
// header) or "#". Words are lowercased when lower is set.
func LoadWordList(path string, lower bool) ([]string, error) {
	var words []string
	err := ForEachLine(path, func(n int, line string) error {
		w := strings.TrimSpace(FixUTF8(line))
		if w == "" || strings.HasPrefix(w, ";") || strings.HasPrefix(w, "#") {
			return nil
		}
		if strings.ContainsAny(w, " \t") {
			return fmt.Errorf("%s:%d: want one word per line, got %q", path, n, w)
		}
		if lower {
			w = strings.ToLower(w)
		}
		words = append(words, w)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load word list: %w", err)
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("load word list: %s: no words", path)
	}
	return words, nil
}

// LoadNRC reads the NRC Emotion Lexicon word-level file (word TAB category TAB
// 0/1) and returns the words marked positive and those marked negative.
func LoadNRC(path string) (pos, neg []string, err error) {
	err = ForEachLine(path, func(n int, line string) error {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return fmt.Errorf("%s:%d: want 3 tab-separated fields (word, category, 0/1), got %d", path, n, len(f))
		}
		switch f[2] {
		case "0":
			return nil
		case "1":
		default:
			return fmt.Errorf("%s:%d: association %q is neither 0 nor 1", path, n, f[2])
		}
		switch f[1] {
		case "positive":
			pos = append(pos, strings.ToLower(f[0]))
		case "negative":
			neg = append(neg, strings.ToLower(f[0]))
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("load NRC lexicon: %w", err)
	}
	if len(pos)+len(neg) == 0 {
		return nil, nil, fmt.Errorf("load NRC lexicon: %s: no positive or negative words", path)
	}
	return pos, neg, nil
}

// ScoredTerm is one SemEval-2015 Task 10E entry: a term and its sentiment score.
type ScoredTerm struct {
	Term  string
	Score float64
}

// LoadSemEval reads the SemEval-2015 Task 10E lexicon (score TAB term per line).
func LoadSemEval(path string) ([]ScoredTerm, error) {
	var out []ScoredTerm
	err := ForEachLine(path, func(n int, line string) error {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		f := strings.SplitN(FixUTF8(line), "\t", 2)
		if len(f) != 2 {
			return fmt.Errorf("%s:%d: want score TAB term", path, n)
		}
		s, err := parseNumber(path, n, "score", f[0])
		if err != nil {
			return err
		}
		out = append(out, ScoredTerm{Term: strings.TrimSpace(f[1]), Score: s})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load SemEval lexicon: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("load SemEval lexicon: %s: no entries", path)
	}
	return out, nil
}

// Document is one retrieval document (a line of docs.jsonl).
type Document struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// RetrievalQuery is one retrieval query (a line of queries.jsonl) with the
// ids of its relevant documents.
type RetrievalQuery struct {
	ID       string   `json:"id"`
	Text     string   `json:"text"`
	Relevant []string `json:"relevant"`
}

// The shapes of a documents line and a queries line, as errors name them.
const (
	documentShape = `{"id": "…", "text": "…"}`
	queryShape    = `{"id": "…", "text": "…", "relevant": ["doc id", …]}`
)

// LoadDocuments reads a JSONL file of {"id", "text"} documents: every line
// a JSON object whose "id" is a non-empty string and whose "text" is a
// string, or an error naming the file, the line and the key. Keys match
// without regard to case, as encoding/json matches them ("ID", "Text"), a
// key written exactly so winning over another spelling. A document with an
// empty text (a title-only record) is kept; it has no vector. A repeated id is kept (debian-dev
// has one: two descriptions of one package) with a warning naming both
// lines; the retrieval metrics treat documents sharing an id as one
// relevant item. Keys other than "id" and "text" are ignored, with a warning.
func LoadDocuments(path string) ([]Document, error) {
	var docs []Document
	seen := map[string]int{}
	extra := extraKeys{path: path}
	err := ForEachLine(path, func(n int, line string) error {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		l, err := parseJSONLine(path, n, line, documentShape, "id", "text")
		if err != nil {
			return err
		}
		extra.note(l)
		var d Document
		if d.ID, err = l.id("id"); err != nil {
			return err
		}
		if d.Text, err = l.text("text"); err != nil {
			return err
		}
		if prev, dup := seen[d.ID]; dup {
			slog.Warn("repeated document id: both documents count as that id", "file", path, "line", n, "first_line", prev, "id", d.ID)
		} else {
			seen[d.ID] = n
		}
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load documents: %w", err)
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("load documents: %s: no documents", path)
	}
	extra.warn()
	return docs, nil
}

// LoadQueries reads a JSONL file of {"id", "text", "relevant": [doc id]}
// queries: every line a JSON object whose "id" is a non-empty string, whose
// "text" is a string and whose "relevant" is a non-empty array of non-empty
// strings, or an error naming the file, the line and the key. Keys match as
// in LoadDocuments. A query with an empty text is kept; it has no vector and
// finds nothing. Other keys are ignored, with a warning.
func LoadQueries(path string) ([]RetrievalQuery, error) {
	var qs []RetrievalQuery
	extra := extraKeys{path: path}
	err := ForEachLine(path, func(n int, line string) error {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		l, err := parseJSONLine(path, n, line, queryShape, "id", "text", "relevant")
		if err != nil {
			return err
		}
		extra.note(l)
		var q RetrievalQuery
		if q.ID, err = l.id("id"); err != nil {
			return err
		}
		if q.Text, err = l.text("text"); err != nil {
			return err
		}
		if q.Relevant, err = l.ids("relevant"); err != nil {
			return err
		}
		qs = append(qs, q)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load queries: %w", err)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("load queries: %s: no queries", path)
	}
	extra.warn()
	return qs, nil
}

// jsonLine is one line of a JSONL file, parsed as a JSON object, with where
// it is and the shape its file wants (for errors).
type jsonLine struct {
	path, shape string
	n           int
	obj         map[string]json.RawMessage
	keys        []string          // the keys the file wants
	found       map[string]string // each key of keys to the key of obj that holds it
}

// parseJSONLine parses line n of path as a JSON object holding every key of
// want, or returns an error naming the file, the line, the missing keys and
// the keys the line has, with the shape the file wants.
func parseJSONLine(path string, n int, line, shape string, want ...string) (*jsonLine, error) {
	l := &jsonLine{path: path, n: n, shape: shape, keys: want, found: map[string]string{}}
	err := json.Unmarshal([]byte(line), &l.obj)
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		return nil, fmt.Errorf("%s:%d: want a JSON object %s, got a JSON %s", path, n, shape, typeErr.Value)
	case err != nil:
		return nil, fmt.Errorf("%s:%d: not valid JSON (want %s): %w", path, n, shape, err)
	case l.obj == nil:
		return nil, fmt.Errorf("%s:%d: want a JSON object %s, got null", path, n, shape)
	}
	var missing []string
	for _, k := range want {
		if key, ok := matchKey(l.obj, k); ok {
			l.found[k] = key
		} else {
			missing = append(missing, strconv.Quote(k))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s:%d: no %s key (the line has %s; want %s)",
			path, n, strings.Join(missing, " or "), keyList(l.obj), shape)
	}
	return l, nil
}

// matchKey returns the key of obj that holds want as encoding/json matches
// an object key to a field: want itself, or else a key equal to it without
// regard to case (the first in sorted order if several are).
func matchKey(obj map[string]json.RawMessage, want string) (string, bool) {
	if _, ok := obj[want]; ok {
		return want, true
	}
	var found string
	for k := range obj {
		if strings.EqualFold(k, want) && (found == "" || k < found) {
			found = k
		}
	}
	return found, found != ""
}

// value returns the raw value of the wanted key (as parseJSONLine matched it).
func (l *jsonLine) value(key string) json.RawMessage {
	return l.obj[l.found[key]]
}

// text returns the value of key, which must be a string (it may be empty).
func (l *jsonLine) text(key string) (string, error) {
	var s string
	raw := l.value(key)
	if err := json.Unmarshal(raw, &s); err != nil || bytes.Equal(raw, []byte("null")) {
		return "", fmt.Errorf("%s:%d: %q must be a string, got %s (want %s)", l.path, l.n, key, clip(raw), l.shape)
	}
	return s, nil
}

// id returns the value of key, which must be a non-empty string (not only spaces).
func (l *jsonLine) id(key string) (string, error) {
	s, err := l.text(key)
	if err == nil && strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("%s:%d: %q is empty", l.path, l.n, key)
	}
	return s, err
}

// ids returns the value of key, which must be a non-empty array of non-empty strings.
func (l *jsonLine) ids(key string) ([]string, error) {
	var ids []string
	raw := l.value(key)
	if err := json.Unmarshal(raw, &ids); err != nil || bytes.Equal(raw, []byte("null")) {
		return nil, fmt.Errorf("%s:%d: %q must be an array of document ids (strings), got %s (want %s)",
			l.path, l.n, key, clip(raw), l.shape)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s:%d: %q has no document ids", l.path, l.n, key)
	}
	for i, id := range ids {
		if strings.TrimSpace(id) == "" {
			return nil, fmt.Errorf("%s:%d: %q: document id %d is empty", l.path, l.n, key, i+1)
		}
	}
	return ids, nil
}

// used reports whether key k of the line is one its loader reads.
func (l *jsonLine) used(k string) bool {
	for _, key := range l.found {
		if key == k {
			return true
		}
	}
	return false
}

// keyList returns the keys of obj, sorted and quoted, or "no keys".
func keyList(obj map[string]json.RawMessage) string {
	if len(obj) == 0 {
		return "no keys"
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, strconv.Quote(k))
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

// clip returns raw JSON for an error, cut at 40 bytes.
func clip(raw json.RawMessage) string {
	const limit = 40
	if len(raw) > limit {
		return string(raw[:limit]) + "…"
	}
	return string(raw)
}

// extraKeys collects the keys of a JSONL file that its loader ignores, with
// the first line holding each, for one warning after the file is read.
type extraKeys struct {
	path  string
	first map[string]int
}

// note records the keys of line l that its file's loader does not read.
func (e *extraKeys) note(l *jsonLine) {
	for k := range l.obj {
		if l.used(k) {
			continue
		}
		if _, ok := e.first[k]; !ok {
			if e.first == nil {
				e.first = map[string]int{}
			}
			e.first[k] = l.n
		}
	}
}

// warn logs one warning naming the ignored keys and the first line of each.
func (e *extraKeys) warn() {
	if len(e.first) == 0 {
		return
	}
	keys := make([]string, 0, len(e.first))
	for k, n := range e.first {
		keys = append(keys, fmt.Sprintf("%q (line %d)", k, n))
	}
	slices.Sort(keys)
	slog.Warn("keys ignored", "file", e.path, "keys", strings.Join(keys, ", "))
}

// parseNumber reads field, the what of line n of path (spaces around it
// ignored), as a finite number, or names it in the error.
func parseNumber(path string, n int, what, field string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(field), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s:%d: %s %q is not a number", path, n, what, field)
	}
	return v, nil
}

// NonceDefinition is one line of the definitional nonce dataset (Herbelot &
// Baroni 2017): a word and its definition sentence, the word written ___.
type NonceDefinition struct {
	Word, Sentence string
}

// LoadNonceDefinitions reads the definitional nonce dataset: "word TAB
// definition" per line, the defined word written ___ in the definition.
func LoadNonceDefinitions(path string) ([]NonceDefinition, error) {
	var out []NonceDefinition
	err := ForEachLine(path, func(n int, line string) error {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		f := strings.SplitN(FixUTF8(line), "\t", 2)
		if len(f) != 2 || strings.TrimSpace(f[0]) == "" || strings.TrimSpace(f[1]) == "" {
			return fmt.Errorf("%s:%d: want word TAB definition", path, n)
		}
		out = append(out, NonceDefinition{Word: strings.ToLower(strings.TrimSpace(f[0])), Sentence: f[1]})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load nonce definitions: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("load nonce definitions: %s: no definitions", path)
	}
	return out, nil
}
