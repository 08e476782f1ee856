package vectorizer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// importPassages returns count passages of 50 frequent words of m (five
// sentences of ten), each with two words from two pools of 4,000 unseen
// ones, which the memory learns contexts for, as in imported jargon: in a
// sentence of their own at the end, or with inSentence each at a random
// place of a random sentence of frequent words.
func importPassages(words []string, count int, seed uint64, inSentence bool) []string {
	ps := testmodel.Passages(words, count, 50, seed)
	r := rand.New(rand.NewPCG(seed, 7))
	for i, p := range ps {
		zq, qz := fmt.Sprintf("zq%dx", r.IntN(4000)), fmt.Sprintf("qz%dy", r.IntN(4000))
		if !inSentence {
			ps[i] = p + " " + zq + " " + qz + "."
			continue
		}
		sents := strings.Split(strings.TrimSuffix(p, "."), ". ")
		for _, unseen := range []string{zq, qz} {
			k := r.IntN(len(sents))
			ws := strings.Fields(sents[k])
			ws = slices.Insert(ws, r.IntN(len(ws)+1), unseen)
			sents[k] = strings.Join(ws, " ")
		}
		ps[i] = strings.Join(sents, ". ") + "."
	}
	return ps
}

// BenchmarkImportMemorySize imports batches of 64 passages (TaskPassage, the
// import path, teaching the memory) into a memory in RAM or in a directory
// (default options) that already holds 0 or 18,432 passages of the same
// kind, and reports the process CPU time per imported passage (with the
// collector's work), the CPU time of one collection of the heap before the
// import (the runtime's estimate: what every cycle costs with the memory
// held) and the live heap objects then; the ratio of held=18432 to held=0
// in one run is the cost of the memory's size. The passages hold their
// unseen words in a sentence of their own (so that the remembered contexts
// hold no known word and AM runs on the form alone); "ram,interleaved" and
// "ram,interleaved,in-sentence" (the unseen words inside sentences of
// frequent words: remembered contexts AM uses) compare both sides in one
// process.
func BenchmarkImportMemorySize(b *testing.B) {
	m, _, err := testmodel.BenchModel()
	if err != nil {
		b.Fatal(err)
	}
	words := testmodel.FrequentWords(m, 32, 20_000)
	fill := importPassages(words, 18_432, 11, false)
	measured := importPassages(words, 1_024, 12, false)
	for _, held := range []int{0, len(fill)} {
		for _, disk := range []bool{false, true} {
			name := fmt.Sprintf("ram,held=%d", held)
			if disk {
				name = fmt.Sprintf("dir,held=%d", held)
			}
			b.Run(name, func(b *testing.B) { benchImport(b, m, fill[:held], measured, disk) })
		}
	}
	b.Run("ram,interleaved", func(b *testing.B) { benchImportInterleaved(b, m, words, fill, false) })
	b.Run("ram,interleaved,in-sentence", func(b *testing.B) {
		benchImportInterleaved(b, m, words, importPassages(words, len(fill), 11, true), true)
	})
}

// benchImportInterleaved imports, each round, 1,024 new passages into an
// empty memory and into one holding fill (and the earlier rounds'
// passages), batch by batch in turn, and reports the process CPU time per
// passage of each and their ratio: on a loaded machine both see the same
// neighbours, batch for batch. Each side runs under the profiler label
// memory=empty or memory=held, so that a CPU profile of this benchmark
// (-test.cpuprofile) tells the two apart (go tool pprof -tagfocus memory=held).
func benchImportInterleaved(b *testing.B, m *model.Model, words, fill []string, inSentence bool) {
	const batch = 64
	newVectorizer := func() (*Vectorizer, *memory.Memory) {
		mem, err := memory.Open("", memory.DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		v, err := New(m, mem, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		return v, mem
	}
	held, heldMem := newVectorizer()
	defer heldMem.Close()
	importAll(b, held, fill, batch)
	var cpu [2]int64 // empty, held
	round := uint64(0)
	for b.Loop() {
		b.StopTimer()
		round++
		texts := importPassages(words, 1_024, 100+round, inSentence)
		empty, emptyMem := newVectorizer()
		runtime.GC()
		b.StartTimer()
		for from := 0; from < len(texts); from += batch {
			for j := range 2 { // first one, then the other: neither always finds the rows warm
				k := (j + from/batch) % 2
				v := []*Vectorizer{empty, held}[k]
				c0, _ := testmodel.ProcessCPUTime()
				pprof.Do(context.Background(), pprof.Labels("memory", []string{"empty", "held"}[k]), func(context.Context) {
					importAll(b, v, texts[from:from+batch], batch)
				})
				c1, _ := testmodel.ProcessCPUTime()
				cpu[k] += c1 - c0
			}
		}
		b.StopTimer()
		emptyMem.Close()
		b.StartTimer()
	}
	n := float64(b.N * 1_024)
	b.ReportMetric(float64(cpu[0])/n, "empty-cpu-ns/passage")
	b.ReportMetric(float64(cpu[1])/n, "held-cpu-ns/passage")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "held/empty")
}

// benchImport measures importing measured into a memory holding held.
func benchImport(b *testing.B, m *model.Model, held, measured []string, disk bool) {
	const batch = 64
	var cpu int64
	var gc float64     // CPU seconds of collections of the live heap (the runtime's estimate)
	var objects uint64 // live heap objects before the import
	samples := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/gc/heap/objects:objects"}}
	for b.Loop() {
		b.StopTimer()
		dir := ""
		if disk {
			dir = b.TempDir()
			if err := os.Chmod(dir, 0o700); err != nil {
				b.Fatal(err)
			}
		}
		mem, err := memory.Open(dir, memory.DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		v, err := New(m, mem, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		importAll(b, v, held, batch)
		runtime.GC() // the filling's garbage is not the measured import's
		metrics.Read(samples)
		gc0 := samples[0].Value.Float64()
		runtime.GC() // a collection of nothing but the live heap: what every cycle costs
		metrics.Read(samples)
		gc += samples[0].Value.Float64() - gc0
		objects += samples[1].Value.Uint64()
		b.StartTimer()
		c0, _ := testmodel.ProcessCPUTime()
		importAll(b, v, measured, batch)
		c1, _ := testmodel.ProcessCPUTime()
		cpu += c1 - c0
		b.StopTimer()
		mem.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu)/float64(b.N*len(measured)), "cpu-ns/passage")
	b.ReportMetric(gc*1e9/float64(b.N), "gc-cycle-cpu-ns")
	b.ReportMetric(float64(objects)/float64(b.N), "heap-objects")
}

// importAll vectorizes texts as passages in batches.
func importAll(b *testing.B, v *Vectorizer, texts []string, batch int) {
	for from := 0; from < len(texts); from += batch {
		_, errs := v.VectorizeBatch(texts[from:min(from+batch, len(texts))], TaskPassage, v.Options())
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
