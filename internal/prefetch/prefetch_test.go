package prefetch

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestRows prefetches rows of a table at every alignment, size and stride
// that matters, with negative ids among them: a prefetch has no result to
// check, but the loop must end, skip what it must, and leave memory and ids
// as they were (the assembly runs on amd64 and arm64, nothing elsewhere).
func TestRows(t *testing.T) {
	table := make([]byte, 1<<16)
	for i := range table {
		table[i] = byte(i)
	}
	orig := slices.Clone(table)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		stride := uintptr(1 + rng.IntN(1000))
		size := uintptr(1 + rng.IntN(int(stride)))
		n := 1 + rng.IntN(64)
		ids := make([]int32, n)
		for k := range ids {
			ids[k] = int32(rng.IntN(len(table)/int(stride))) - int32(rng.IntN(2))*int32(1+rng.IntN(1<<30))
		}
		before := slices.Clone(ids)
		base := unsafe.Pointer(&table[rng.IntN(64)])
		Rows(base, stride, size, ids)
		if !slices.Equal(ids, before) {
			t.Fatal("Rows changed its ids")
		}
	}
	Rows(unsafe.Pointer(&table[0]), 64, 64, nil)
	Rows(unsafe.Pointer(&table[0]), 64, 0, []int32{1})
	if !slices.Equal(table, orig) {
		t.Fatal("Rows changed the table")
	}
}
