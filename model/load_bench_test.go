package model

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var bigFile struct {
	once sync.Once
	path string
	err  error
}

// bigEmbeddingsFile writes a 90,000 × 300 word2vec text file (values with 6
// decimals, as word2vec and gensim write them) once per test binary run.
func bigEmbeddingsFile(b *testing.B) string {
	bigFile.once.Do(func() {
		dir, err := os.MkdirTemp("", "t2vam-bench")
		if err != nil {
			bigFile.err = err
			return
		}
		bigFile.path = filepath.Join(dir, "big.vec")
		e := randomEmbeddings(b, 90000, 300, 42)
		f, err := os.Create(bigFile.path)
		if err != nil {
			bigFile.err = err
			return
		}
		w := bufio.NewWriterSize(f, 1<<20)
		fmt.Fprintf(w, "%d %d\n", e.Len(), e.Dim)
		buf := make([]byte, 0, 32)
		for i, word := range e.Words {
			w.WriteString(word)
			for _, x := range e.Row(int32(i)) {
				buf = append(buf[:0], ' ')
				buf = strconv.AppendFloat(buf, float64(x), 'f', 6, 32)
				w.Write(buf)
			}
			w.WriteByte('\n')
		}
		if err := w.Flush(); err != nil {
			bigFile.err = err
		}
		bigFile.err = f.Close()
	})
	if bigFile.err != nil {
		b.Fatal(bigFile.err)
	}
	return bigFile.path
}

// BenchmarkLoadEmbeddings90kx300 loads a 90k × 300 text file with
// LoadEmbeddings; the anchor (BenchmarkLoadEmbeddingsNaive90kx300) is the
// obvious loader: bufio.Scanner, strings.Fields, strconv.ParseFloat.
func BenchmarkLoadEmbeddings90kx300(b *testing.B) {
	path := bigEmbeddingsFile(b)
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		e, err := LoadEmbeddings(path)
		if err != nil || e.Len() != 90000 {
			b.Fatal(err)
		}
	}
	cpu.report(b, "load")
}

func BenchmarkLoadEmbeddingsNaive90kx300(b *testing.B) {
	path := bigEmbeddingsFile(b)
	b.ResetTimer()
	cpu := startCPU()
	defer cpu.report(b, "load")
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		sc.Scan()
		var words []string
		var vecs []float32
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			words = append(words, fs[0])
			for _, s := range fs[1:] {
				x, err := strconv.ParseFloat(s, 32)
				if err != nil {
					b.Fatal(err)
				}
				vecs = append(vecs, float32(x))
			}
		}
		f.Close()
		if len(words) != 90000 || len(vecs) != 90000*300 {
			b.Fatal(len(words), len(vecs))
		}
	}
}

// TestMain removes the benchmark's temporary embeddings file.
func TestMain(m *testing.M) {
	code := m.Run()
	if bigFile.path != "" {
		os.RemoveAll(filepath.Dir(bigFile.path))
	}
	os.Exit(code)
}
