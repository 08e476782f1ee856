package memory

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestBudgetBoundsHeapLongContexts fills a memory past its budget with
// words of full-length contexts and checks that the Go heap the memory
// holds stays within the budget, as the configuration page says: within
// 2 %, the allocator's rounding of a 1 KB context up to its size class.
func TestBudgetBoundsHeapLongContexts(t *testing.T) {
	o := quietOptions()
	o.MaxBytes = 16 << 20
	pad := strings.Repeat("x", o.MaxContextBytes-40)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := mustOpen(t, "", o)
	obs := make([]Observation, 0, 8)
	for i := range 40_000 {
		obs = obs[:0]
		for j := range 1 + i%8 {
			obs = append(obs, Observation{Word: fmt.Sprintf("jargon%d", i),
				Context: fmt.Sprintf("%d jargon%d %s", j, i, pad)})
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
	t.Logf("budget %d, accounted %d, heap %d (%.2f of the budget), %d words, %d contexts, %d evicted",
		o.MaxBytes, s.BudgetBytes, heap, float64(heap)/float64(o.MaxBytes), s.Words, s.Contexts, s.Evicted)
	if heap > o.MaxBytes+o.MaxBytes/50 {
		t.Errorf("heap %d, accounted %d, budget %d", heap, s.BudgetBytes, o.MaxBytes)
	}
	runtime.KeepAlive(m)
}
