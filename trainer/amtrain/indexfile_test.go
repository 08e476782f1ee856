package amtrain

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/checkpoint"
	"github.com/text2vec-am/text2vec-am/model"
)

// builtIndex returns the bytes of the index file buildIndex writes for
// corpus, and its key.
func builtIndex(t testing.TB, corpus string) ([]byte, uint64) {
	t.Helper()
	dir := t.TempDir()
	p := writeFile(t, dir, "c.txt", corpus)
	const key = 0x1234
	path := filepath.Join(dir, "x.idx")
	if err := buildIndex(context.Background(), []string{p}, model.DefaultTokenizer(), path, key); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, key
}

// resum sets the checksum in the header of index file b to that of its body.
func resum(b []byte) {
	if len(b) >= indexHeaderSize {
		binary.LittleEndian.PutUint64(b[8+8*11:], uint64(crc32.Checksum(b[indexHeaderSize:], castagnoli)))
	}
}

// setField sets header field i (0 version … 11 crc) of index file b.
func setField(b []byte, i int, v uint64) { binary.LittleEndian.PutUint64(b[8+8*i:], v) }

// exercise uses every part of index x as training does: its words (which
// must make a vocabulary, but for those longer than a vocabulary holds),
// counts, position lists and the contexts around every position.
func exercise(x *Index) {
	var fit []string
	for _, w := range x.Words {
		if len(w) <= model.MaxWordBytes {
			fit = append(fit, w)
		}
	}
	base, err := model.NewEmbeddings(1, fit, make([]float32, len(fit)), nil)
	if err != nil {
		panic(fmt.Sprintf("the words of a loaded index are not a vocabulary: %v", err))
	}
	s := NewSampler(x, base, 3)
	var dst []int32
	for id := range int32(x.Len()) {
		x.Count(id)
		for _, p := range x.Positions(id) {
			dst = s.AppendContext(dst[:0], id, p)
		}
	}
	x.Tokens()
	x.Lines()
}

// FuzzLoadIndex: whatever an occurrence index file holds (its checksum made
// to match or not), loadIndex refuses it with an error or returns an index
// every part of which can be used.
func FuzzLoadIndex(f *testing.F) {
	for _, c := range []string{"a b c\nb c d\n", "one\n", "x y x y x\n\nz\n"} {
		b, _ := builtIndex(f, c)
		f.Add(b, true)
		f.Add(b[:len(b)-1], true)
	}
	f.Fuzz(func(t *testing.T, data []byte, fixSum bool) {
		if fixSum {
			resum(data)
		}
		if len(data) >= indexHeaderSize {
			setField(data, 2, 0x1234) // the key: the fuzzer need not find it
		}
		path := filepath.Join(t.TempDir(), "x.idx")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		x, err := loadIndex(path, 0x1234)
		if err != nil {
			return
		}
		defer x.Close()
		exercise(x)
	})
}

// A damaged or crafted index file is refused with an error saying what is
// wrong: a header field (the checksum does not cover the header) that puts
// a section outside the file or claims more word types than the file can
// hold, and a body whose checksum matches but whose parts disagree.
func TestLoadIndexRefusesDamage(t *testing.T) {
	good, key := builtIndex(t, "a b c\nb c d\n")
	cases := []struct {
		name   string
		damage func(b []byte)
		want   string
	}{
		{"2^40 word types", func(b []byte) { setField(b, 4, 1<<40) }, "word types"},
		{"more word types", func(b []byte) { setField(b, 4, binary.LittleEndian.Uint64(b[8+8*4:])+1) }, "out of place"},
		{"more tokens", func(b []byte) { setField(b, 3, binary.LittleEndian.Uint64(b[8+8*3:])+2) }, "out of place"},
		{"tokens past the end", func(b []byte) { setField(b, 3, 1<<31) }, "out of place"},
		{"more lines", func(b []byte) { setField(b, 5, 3) }, "lines"},
		{"vocabulary past the end", func(b []byte) { setField(b, 9, 1<<62) }, "size"},
		{"a token id past the word types", func(b []byte) {
			binary.LittleEndian.PutUint32(b[indexHeaderSize+4:], 1000)
			resum(b)
		}, "id 1000"},
		{"a position past the stream", func(b []byte) {
			h := indexHeader{}
			h.decode(b)
			binary.LittleEndian.PutUint32(b[h.positionsOff:], 1<<30)
			resum(b)
		}, "past the stream"},
		{"a position of another word", func(b []byte) {
			h := indexHeader{}
			h.decode(b)
			binary.LittleEndian.PutUint32(b[h.positionsOff:], 2) // "a" at 1 → "b" at 2
			resum(b)
		}, "not those of its tokens"},
		{"offsets falling", func(b []byte) {
			h := indexHeader{}
			h.decode(b)
			binary.LittleEndian.PutUint64(b[h.offsetsOff+8:], 1<<40)
			resum(b)
		}, "offsets"},
		{"a repeated word", func(b []byte) {
			h := indexHeader{}
			h.decode(b)
			b[h.vocabOff+3] = 'a' // "\x01a\x01b…" → "\x01a\x01a…"
			resum(b)
		}, "repeats"},
		{"a word with a space", func(b []byte) {
			h := indexHeader{}
			h.decode(b)
			b[h.vocabOff+3] = ' ' // "\x01a\x01b…" → "\x01a\x01 …"
			resum(b)
		}, "white space"},
		{"an empty word", func(b []byte) {
			h := indexHeader{}
			h.decode(b)
			copy(b[h.vocabOff:], "\x00\x02ab") // "\x01a\x01b…" → "", "ab"…
			resum(b)
		}, "empty word"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := slices.Clone(good)
			c.damage(b)
			path := filepath.Join(t.TempDir(), "x.idx")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			x, err := loadIndex(path, key)
			if err == nil {
				x.Close()
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %v, want it to name %s and say %q", err, path, c.want)
			}
		})
	}
}

// TestIndexOfAVeryLongWord: a run of letters longer than a vocabulary word
// may be (model.MaxWordBytes) is a word of the corpus index like any other:
// the index is built, then loaded from its file, and counts it.
func TestIndexOfAVeryLongWord(t *testing.T) {
	long := strings.Repeat("a", model.MaxWordBytes+1)
	dir := t.TempDir()
	p := writeFile(t, dir, "c.txt", "the cat "+long+" sat\n")
	for _, step := range []string{"built", "loaded"} {
		x, err := OpenIndex(context.Background(), []string{p}, model.DefaultTokenizer(), dir, quietLog())
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		id, ok := x.ID(long)
		if !ok || x.Count(id) != 1 {
			t.Errorf("%s: the long word in the index %v, count %d; want it once", step, ok, x.Count(id))
		}
		exercise(x)
		x.Close()
	}
}

// The memory loadIndex takes for a small file claiming many word types
// stays within a bound of its size.
func TestLoadIndexMemoryBoundedByFile(t *testing.T) {
	b, key := builtIndex(t, "a b c\nb c d\n")
	setField(b, 4, 1<<30)
	path := filepath.Join(t.TempDir(), "x.idx")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if x, err := loadIndex(path, key); err == nil {
		x.Close()
		t.Fatal("loaded")
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("loading a %d-byte file allocated %d bytes", len(b), grew)
	}
}

// FuzzReadInclude: whatever an include (or --only-words) file holds,
// ReadInclude returns an error or distinct words that have a base vector
// and occur in the corpus.
func FuzzReadInclude(f *testing.F) {
	f.Add([]byte("# words\ncat\n\nDog\ncat\n"), true)
	f.Add([]byte("cat dog\n"), true)
	f.Add([]byte("\xff\xfec\x00a\x00t\x00\n\x00"), true)
	f.Add([]byte("bird\n"), true)
	x, _ := openTiny(f, "the cat and the dog\n")
	base := tinyBase(f, "cat", "dog", "bird")
	f.Fuzz(func(t *testing.T, data []byte, skip bool) {
		path := filepath.Join(t.TempDir(), "words.txt")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		words, err := ReadInclude(path, model.DefaultTokenizer(), base, x, skip, quietLog())
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want it to name the file", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, w := range words {
			_, inBase := base.ID(w)
			_, inCorpus := x.ID(w)
			if seen[w] || !inBase || !inCorpus {
				t.Fatalf("words %q: %q repeated, or without a base vector or not in the corpus", words, w)
			}
			seen[w] = true
		}
	})
}

// FuzzLoadCheckpoint: whatever a checkpoint of train holds past its magic
// (its checksum made to match or not), LoadCheckpoint returns an error
// naming the file or a model and an optimizer state of the same shapes.
func FuzzLoadCheckpoint(f *testing.F) {
	_, o, _ := oneEpochCheckpoint(f)
	good, err := os.ReadFile(o.CheckpointPath)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, true)
	f.Add(good[:len(good)/2], true)
	f.Fuzz(func(t *testing.T, data []byte, fixSum bool) {
		if fixSum && len(data) >= 4 {
			binary.LittleEndian.PutUint32(data[len(data)-4:], crc32.Checksum(data[:len(data)-4], castagnoli))
		}
		path := filepath.Join(t.TempDir(), "ck")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		ck, err := LoadCheckpoint(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want it to name %s", err, path)
			}
			return
		}
		if a := ck.Adam; len(a.MM) != len(ck.Model.M) || len(a.VN) != len(ck.Model.Ngrams) {
			t.Fatal("optimizer state of other shapes")
		}
	})
}

// A checkpoint of a few hundred bytes whose model claims a payload of
// 2^39 bytes is refused without allocating memory on that claim's
// account: what LoadCheckpoint allocates stays within a bound of the
// file's size.
func TestLoadCheckpointMemoryBoundedByFile(t *testing.T) {
	weights := append([]byte("T2VAM\r\n\x1a"), 1, 0, 0, 0)
	weights = binary.LittleEndian.AppendUint64(weights, 1<<39)
	weights = append(weights, make([]byte, 64)...)
	path := filepath.Join(t.TempDir(), "ck")
	err := checkpoint.Write(path, checkpointMagic, &TrainState{}, func(w *checkpoint.Writer) {
		w.U64(uint64(len(weights)))
		w.Write(weights)
	})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = LoadCheckpoint(path)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want an error naming %s", err, path)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("a checkpoint of %d bytes: %d bytes allocated", len(weights)+100, grew)
	}
}
