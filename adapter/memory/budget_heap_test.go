package memory

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// fillPastBudget remembers words 0 … n-1 with one to eight contexts each
// (context(i, j) is word i's context j) in a memory in RAM of options o, and
// returns it with the Go heap it holds, logged beside the budget.
func fillPastBudget(t *testing.T, o Options, n int, context func(i, j int) string) (*Memory, int64) {
	t.Helper()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := mustOpen(t, "", o)
	obs := make([]Observation, 0, 8)
	for i := range n {
		obs = obs[:0]
		for j := range 1 + i%8 {
			obs = append(obs, Observation{Word: fmt.Sprintf("jargon%d", i), Context: context(i, j)})
		}
		if err := m.Remember(obs); err != nil {
			t.Fatal(err)
		}
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	s := m.Stats()
	t.Logf("budget %d, accounted %d, heap %d (%.3f of the budget), %d words, %d contexts, %d evicted",
		o.MaxBytes, s.BudgetBytes, heap, float64(heap)/float64(o.MaxBytes), s.Words, s.Contexts, s.Evicted)
	return m, heap
}

// TestBudgetBoundsHeap fills a memory far past its budget with words of one
// to eight contexts and checks that the Go heap the memory holds stays
// within the budget.
func TestBudgetBoundsHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 32 MiB several times over")
	}
	o := quietOptions()
	o.MaxBytes = 32 << 20
	m, heap := fillPastBudget(t, o, 600_000, func(i, j int) string {
		return fmt.Sprintf("sentence %d about jargon%d in a passage of middling length", j, i)
	})
	s := m.Stats()
	if s.BudgetBytes > o.MaxBytes || heap > o.MaxBytes || s.Evicted == 0 {
		t.Errorf("heap %d, accounted %d, budget %d", heap, s.BudgetBytes, o.MaxBytes)
	}
	if c, _ := m.Contexts(nil, "jargon599999"); len(c) != 8 {
		t.Errorf("the last word has %d contexts, want 8", len(c))
	}
	runtime.KeepAlive(m)
}

// TestBudgetBoundsHeapLongContexts does the same with contexts of full
// length: the heap stays within the budget as the configuration page says,
// within 2 %, the allocator's rounding of a 1 KB context up to its size class.
func TestBudgetBoundsHeapLongContexts(t *testing.T) {
	o := quietOptions()
	o.MaxBytes = 16 << 20
	pad := strings.Repeat("x", o.MaxContextBytes-40)
	m, heap := fillPastBudget(t, o, 40_000, func(i, j int) string { return fmt.Sprintf("%d jargon%d %s", j, i, pad) })
	if heap > o.MaxBytes+o.MaxBytes/50 {
		t.Errorf("heap %d, accounted %d, budget %d", heap, m.Stats().BudgetBytes, o.MaxBytes)
	}
	runtime.KeepAlive(m)
}
