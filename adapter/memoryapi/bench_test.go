//go:build unix

package memoryapi_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// BenchmarkBatch vectorizes debian-dev documents in batches of 100 (as
// Weaviate's import hands them to the module) with a local memory (the
// anchor) and with the shared memory of a holder on loopback, teaching
// (passage) and not (query). Each op is one batch; docs/s is reported.
//
//	go test ./adapter/memoryapi -run - -bench Batch -cpu 1 -count 5
func BenchmarkBatch(b *testing.B) {
	path := filepath.Join("..", "..", "..", "shared", "data", "retrieval", "debian-dev", "docs.jsonl")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("needs the debian-dev documents at %s: %v", path, err)
	}
	docs, err := dataset.LoadDocuments(path)
	if err != nil {
		b.Fatal(err)
	}
	m, desc, err := testmodel.BenchModel()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("model: %s", desc)
	const batch = 100
	texts := make([]string, 0, 2000)
	for _, d := range docs[:2000] {
		texts = append(texts, d.Text)
	}
	opts := vectorizer.DefaultOptions()
	for _, task := range []struct {
		name string
		task vectorizer.Task
	}{{"query", vectorizer.TaskQuery}, {"passage", vectorizer.TaskPassage}} {
		b.Run("local/"+task.name, func(b *testing.B) {
			mem, err := memory.Open("", memory.DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			v, err := vectorizer.New(m, mem, opts)
			if err != nil {
				b.Fatal(err)
			}
			k := 0
			c0 := processCPU()
			for b.Loop() {
				lo := (k * batch) % len(texts)
				k++
				if _, errs := v.VectorizeBatch(texts[lo:lo+batch], task.task, opts); errors.Join(errs...) != nil {
					b.Fatal(errs)
				}
			}
			report(b, batch, c0)
		})
		b.Run("shared/"+task.name, func(b *testing.B) {
			ts, _ := testhttp.Holder(b, m, false)
			v, err := vectorizer.New(m, nil, opts)
			if err != nil {
				b.Fatal(err)
			}
			c := mustClient(b, ts)
			k := 0
			c0 := processCPU()
			for b.Loop() {
				lo := (k * batch) % len(texts)
				k++
				if _, errs, err := c.VectorizeBatch(context.Background(), v, "", texts[lo:lo+batch], task.task, opts); err != nil || errors.Join(errs...) != nil {
					b.Fatal(err, errs)
				}
			}
			report(b, batch, c0)
		})
	}
}

// processCPU is the CPU time of the whole process (the holder's goroutines
// included): on a shared machine wall-clock rates count time spent waiting
// for a core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report reports docs per wall-clock second and per CPU second of the process.
func report(b *testing.B, batch int, c0 time.Duration) {
	docs := float64(b.N * batch)
	b.ReportMetric(docs/b.Elapsed().Seconds(), "docs/s")
	if cpu := processCPU() - c0; cpu > 0 {
		b.ReportMetric(docs/cpu.Seconds(), "docs/cpu-s")
	}
}
