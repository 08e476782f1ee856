package memory

import (
	"fmt"
	"runtime"
	"testing"
)

// TestBudgetBoundsHeap fills a memory far past its budget with words of one
// to eight contexts and checks that the Go heap the memory holds stays
// within the budget.
func TestBudgetBoundsHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 32 MiB several times over")
	}
	o := quietOptions()
	o.MaxBytes = 32 << 20
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := mustOpen(t, "", o)
	obs := make([]Observation, 0, 8)
	for i := range 600_000 {
		obs = obs[:0]
		for j := range 1 + i%8 {
			obs = append(obs, Observation{Word: fmt.Sprintf("jargon%d", i),
				Context: fmt.Sprintf("sentence %d about jargon%d in a passage of middling length", j, i)})
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
	if s.BudgetBytes > o.MaxBytes || heap > o.MaxBytes || s.Evicted == 0 {
		t.Errorf("heap %d, accounted %d, budget %d", heap, s.BudgetBytes, o.MaxBytes)
	}
	if c, _ := m.Contexts(nil, "jargon599999"); len(c) != 8 {
		t.Errorf("the last word has %d contexts, want 8", len(c))
	}
	runtime.KeepAlive(m)
}
