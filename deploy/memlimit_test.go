package deploy

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
)

// parseGoMemLimit parses a GOMEMLIMIT value as the Go runtime does: a
// number of bytes with an optional unit B, KiB, MiB, GiB or TiB.
func parseGoMemLimit(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	num, mult := s, int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = n, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("GOMEMLIMIT %q: want a positive number of bytes with an optional unit B, KiB, MiB, GiB or TiB", s)
	}
	return n * mult, nil
}

// checkGoMemLimit checks a container's memory settings: a memory limit, a
// request no larger, and GOMEMLIMIT between 80 % and 95 % of the limit
// (below it for what the runtime does not count: the binary, page cache;
// not so far below that the heap is collected early for nothing). It returns
// GOMEMLIMIT in bytes.
func checkGoMemLimit(t *testing.T, value string, res corev1.ResourceRequirements) int64 {
	t.Helper()
	limit := res.Limits.Memory().Value()
	if limit == 0 {
		t.Fatal("no memory limit")
	}
	if req := res.Requests.Memory().Value(); req > limit {
		t.Errorf("memory request %d above the limit %d", req, limit)
	}
	gml, err := parseGoMemLimit(value)
	if err != nil {
		t.Fatal(err)
	}
	if f := float64(gml) / float64(limit); f < 0.80 || f > 0.95 {
		t.Errorf("GOMEMLIMIT %s is %.2f of the memory limit %s: want 0.80 … 0.95", value, f, res.Limits.Memory())
	}
	return gml
}

func TestParseGoMemLimit(t *testing.T) {
	for in, want := range map[string]int64{"3600MiB": 3600 << 20, "1GiB": 1 << 30, "12345": 12345, "7B": 7} {
		if got, err := parseGoMemLimit(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "3.5GiB", "1GB", "-1MiB", "0", "MiB", "99999999999TiB"} {
		if _, err := parseGoMemLimit(in); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
}

// heapGrowth returns the live heap fill adds, in bytes. Each reading
// follows two collections: what the first leaves of earlier work (sync.Pool's
// victim caches, objects whose finalizers it ran) the second frees.
func heapGrowth(fill func() any) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	held := fill()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(held)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// modelBytes measures the heap the default model holds once loaded.
func modelBytes(t *testing.T) int64 {
	t.Helper()
	return heapGrowth(func() any {
		m, err := defaultmodel.Open("")
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}

// countCosts measures what a memory's passage counts cost per counted word
// of the longest length it counts, with words of them counted, and per
// remembered passage hash, with hashes of them remembered: the tables are Go
// maps, whose bytes per entry depend on how far they are from their next
// doubling (a passage hash 33 B at 100,000, 46 B at 2,000,000).
func countCosts(t *testing.T, words, hashes int) (perWord, perPassage float64) {
	t.Helper()
	opts := memory.DefaultOptions()
	opts.MaxDocFreqWords, opts.MaxPassageHashes = words, hashes
	open := func() *memory.Memory {
		m, err := memory.Open("", opts)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	wordBytes := heapGrowth(func() any {
		m := open()
		passage := make([]string, 0, 100)
		for i := range words {
			w := fmt.Sprintf("%0*d", opts.MaxWordBytes, i)
			if passage = append(passage, w); len(passage) == cap(passage) {
				if err := m.CountPassage(passage); err != nil {
					t.Fatal(err)
				}
				passage = passage[:0]
			}
		}
		return m
	})
	hashBytes := heapGrowth(func() any {
		m := open()
		for i := range hashes {
			// Distinct passages of few distinct words: 1,000 + hashes/1,000.
			if err := m.CountPassage([]string{"a" + strconv.Itoa(i%1000), "b" + strconv.Itoa(i/1000)}); err != nil {
				t.Fatal(err)
			}
		}
		return m
	})
	return float64(wordBytes) / float64(words), float64(hashBytes) / float64(hashes)
}

// TestStatelessServeMemoryHoldsBudget checks that the memory limit of a
// replica of text2vec-am-serve.yaml holds the most its settings let it keep:
// its copy of the memory kept in Weaviate, whose contexts' byte budget
// (--memory-max-bytes) and passage counts (up to --memory-max-df-words words
// of the longest countable length and the passage hashes it remembers, at
// the cost per entry measured here) bound it, with its AM vectors (a
// sixteenth of --memory-weaviate-max-bytes), twice while a copy is read
// again beside the one it replaces; the model (measured), and twice
// --max-body-buffer for the requests in flight, with 10 % to spare; this
// must stay under GOMEMLIMIT, which must sit below the limit. The caps must
// fit --memory-weaviate-max-bytes as they are, so that the manifest's
// figures are what a copy keeps.
func TestStatelessServeMemoryHoldsBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("fills passage counts and loads the model to measure them")
	}
	d := only[*appsv1.Deployment](t, serveObjects(t))
	checkBudget(t, d.Spec.Template.Spec.Containers[0])
}

// checkBudget checks that what container c's server may hold, with its
// flags, stays under its GOMEMLIMIT.
func checkBudget(t *testing.T, c corev1.Container) {
	t.Helper()
	gml := checkGoMemLimit(t, envMap(c.Env)["GOMEMLIMIT"], c.Resources)
	if c.Resources.Requests.Memory().Cmp(*c.Resources.Limits.Memory()) != 0 {
		t.Errorf("memory request %s, limit %s: want them equal (a server is not squeezed by its neighbours)",
			c.Resources.Requests.Memory(), c.Resources.Limits.Memory())
	}
	opts, lim := memory.DefaultOptions(), server.DefaultLimits()
	intArg := func(flag string, def int64) int64 {
		v := flagValue(t, c.Args, flag)
		if v == "" {
			return def
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("%s %q: %v", flag, v, err)
		}
		return n
	}
	budget := intArg("--memory-max-bytes", opts.MaxBytes)
	dfWords := intArg("--memory-max-df-words", int64(opts.MaxDocFreqWords))
	bodies := intArg("--max-body-buffer", lim.MaxBodyBuffer)
	if flagValue(t, c.Args, "--model") != "" {
		t.Fatal("the manifest names a --model: measure that model here")
	}

	bound := intArg("--memory-weaviate-max-bytes", weaviatemem.DefaultMaxBytes)
	caps := opts
	caps.MaxBytes, caps.MaxDocFreqWords = budget, int(dfWords)
	fitted := caps
	if weaviatemem.FitCaps(&fitted, bound); fitted != caps {
		t.Errorf("--memory-weaviate-max-bytes %d scales the copy's caps down (--memory-max-bytes %d → %d, "+
			"--memory-max-df-words %d → %d): raise it", bound, budget, fitted.MaxBytes, dfWords, fitted.MaxDocFreqWords)
	}

	perWord, perPassage := countCosts(t, int(dfWords), opts.MaxPassageHashes)
	counts := float64(dfWords)*perWord + float64(opts.MaxPassageHashes)*perPassage
	model := modelBytes(t)
	copyBytes := float64(budget) + counts + float64(bound/16)
	need := 1.1 * (2*copyBytes + float64(model) + 2*float64(bodies))
	t.Logf("contexts %d MiB, counts %.0f MiB (%.0f B/word, %.1f B/passage), AM vectors %d MiB, two copies; "+
		"model %d MiB, bodies 2 × %d MiB: %.0f MiB with 10 %% to spare; GOMEMLIMIT %d MiB, limit %s",
		budget>>20, counts/(1<<20), perWord, perPassage, bound/16>>20, model>>20, bodies>>20,
		need/(1<<20), gml>>20, c.Resources.Limits.Memory())
	if need > float64(gml) {
		t.Errorf("the server may hold %.0f MiB, above GOMEMLIMIT (%d MiB): raise the limit or lower the caps",
			need/(1<<20), gml>>20)
	}
}
