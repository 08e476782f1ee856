package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// choiceMargin is how much faster than the widest set a narrower set must
// be on a kernel (geometric mean of its shapes, medians of the rounds) for
// BenchmarkChoice to call for an override.
const choiceMargin = 0.05

// choiceCase is one kernel on one shape: call returns the call to time
// with the kernels of a set.
type choiceCase struct {
	slot, shape string
	call        func(k kernels) func()
}

// BenchmarkChoice measures every kernel (each slot of kernelSlots) from
// every set this CPU runs, on the shapes the vectorizer, AM inference and
// training use, and logs for each kernel each set's time relative to the
// widest set's, the fastest set, and the set the table (overrides) gives
// this CPU; then the override row the measurements call for (a narrower
// set faster by more than choiceMargin), or that none is needed. Each
// iteration is one round: every kernel on every shape from every set in
// turn (the order of the sets rotated from round to round, a few hundred
// microseconds of thread CPU time each); the verdict uses the medians of
// the rounds. It reports the number of kernels on which the table and the
// measurements disagree (table-disagreements). To check or extend the
// table on the CPU at hand:
//
//	go test -run '^$' -bench '^BenchmarkChoice$' -benchtime 20x -cpu 1 -v ./simd/
func BenchmarkChoice(b *testing.B) {
	ks := allKernels()
	if len(ks) < 2 {
		b.Skip("this CPU and build run one kernel set: nothing to choose")
	}
	if _, ok := threadCPUTime(); !ok {
		b.Skip("no thread CPU time on this system")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cases := choiceCases()
	reps := make([]int, len(cases))
	for i, c := range cases {
		reps[i] = calibrate(c.call(ks[len(ks)-1]), 500_000)
	}
	times := make([][][]float64, len(cases)) // case, set, round → ns per call
	for i := range times {
		times[i] = make([][]float64, len(ks))
	}
	round := 0
	for b.Loop() {
		for i, c := range cases {
			for j := range ks {
				s := (j + round) % len(ks)
				times[i][s] = append(times[i][s], timeCalls(c.call(ks[s]), reps[i]))
			}
		}
		round++
	}
	ratios := slotRatios(cases, times, len(ks))
	_, table := compose(ks, hostCPU())
	disagree := logChoice(b, ks, ratios, table, round)
	b.ReportMetric(float64(disagree), "table-disagreements")
}

// calibrate returns how many calls of f take about ns of thread CPU time.
func calibrate(f func(), ns float64) int {
	f() // warm the caches and the branch predictors
	n := 1
	for {
		t := timeCalls(f, n) * float64(n)
		if t >= ns/4 || n >= 1<<24 {
			return max(1, int(float64(n)*ns/max(t, 1)))
		}
		n *= 4
	}
}

// timeCalls returns the thread CPU time per call of n calls of f.
func timeCalls(f func(), n int) float64 {
	c0, _ := threadCPUTime()
	for range n {
		f()
	}
	c1, _ := threadCPUTime()
	return float64(c1-c0) / float64(n)
}

// slotRatios returns, for each slot of kernelSlots and each set, the
// geometric mean over the slot's shapes of the set's median time divided
// by the widest set's (NaN for a slot without cases).
func slotRatios(cases []choiceCase, times [][][]float64, sets int) [][]float64 {
	out := make([][]float64, len(kernelSlots))
	for i, s := range kernelSlots {
		out[i] = make([]float64, sets)
		for j := range sets {
			var logSum float64
			n := 0
			for c, cs := range cases {
				if cs.slot == s.name {
					logSum += math.Log(median(times[c][j]) / median(times[c][sets-1]))
					n++
				}
			}
			out[i][j] = math.Exp(logSum / float64(n))
		}
	}
	return out
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// logChoice logs the table of ratios, the fastest set of each kernel and
// the table's, and the override row the measurements call for; it returns
// the number of kernels on which the table and the measurements disagree.
func logChoice(b *testing.B, ks []kernels, ratios [][]float64, table [len(kernelSlots)]string, rounds int) int {
	c := hostCPU()
	var sb strings.Builder
	fmt.Fprintf(&sb, "CPU %s family %d model %d (AMX %t); time ÷ the %s set's, medians of %d rounds\n",
		c.vendor, c.family, c.model, c.amx, ks[len(ks)-1].name, rounds)
	fmt.Fprintf(&sb, "%-12s", "kernel")
	for _, k := range ks {
		fmt.Fprintf(&sb, "%8s", k.name)
	}
	fmt.Fprintf(&sb, "  %-8s %s\n", "fastest", "table")
	override := map[string]string{}
	disagree := 0
	for i, s := range kernelSlots {
		fmt.Fprintf(&sb, "%-12s", s.name)
		best := len(ks) - 1
		for j, r := range ratios[i] {
			fmt.Fprintf(&sb, "%8.2f", r)
			if r < ratios[i][best] {
				best = j
			}
		}
		if ratios[i][best] > 1-choiceMargin {
			best = len(ks) - 1 // within the margin: the widest set
		}
		if best != len(ks)-1 {
			override[s.name] = ks[best].name
		}
		mark := ""
		if table[i] != ks[best].name {
			mark = " (differs)"
			disagree++
		}
		fmt.Fprintf(&sb, "  %-8s %s%s\n", ks[best].name, table[i], mark)
	}
	if len(override) == 0 {
		fmt.Fprintf(&sb, "override row: none: the %s set is fastest (or within %.0f %%) on every kernel",
			ks[len(ks)-1].name, 100*choiceMargin)
	} else {
		fmt.Fprintf(&sb, "override row: match %s family %#x (model %#x, AMX %t), slots: %s",
			c.vendor, c.family, c.model, c.amx, overrideLiteral(override))
	}
	b.Log(sb.String())
	return disagree
}

// overrideLiteral writes slots as the Go map literal of an override.
func overrideLiteral(slots map[string]string) string {
	var parts []string
	for _, s := range kernelSlots {
		if set, ok := slots[s.name]; ok {
			parts = append(parts, fmt.Sprintf("%q: %q", s.name, set))
		}
	}
	return "map[string]string{" + strings.Join(parts, ", ") + "}"
}

// choiceCases returns every kernel on the shapes that matter: d = 200 (the
// default model) and 300, AM's 64 contexts, 50-word passages gathered from
// the default model's 74,504-row table (larger than the caches) and from a
// table in cache.
func choiceCases() []choiceCase {
	r := rand.New(rand.NewPCG(71, 72))
	var cs []choiceCase
	for _, d := range []int{200, 300} {
		cs = append(cs, vectorCases(r, d)...)
		cs = append(cs, matrixCases(r, 64, d)...)
		cs = append(cs, matrixCases(r, d, d)...)
	}
	cs = append(cs, gatherCases(r, 74504, 200)...)
	return append(cs, gatherCases(r, 2000, 300)...)
}

// vectorCases are the kernels of one or two vectors of length d.
func vectorCases(r *rand.Rand, d int) []choiceCase {
	x, y, acc := randVec(r, d), randVec(r, d), randVec(r, d)
	const alpha = 1e-6 // keeps the updated vectors bounded over many calls
	shape := fmt.Sprintf("d=%d", d)
	return []choiceCase{
		{"Dot/Axpy", "dot " + shape, func(k kernels) func() {
			dot, px, py := k.dot, unsafe.SliceData(x), unsafe.SliceData(y)
			return func() { sink = dot(px, py, d) }
		}},
		{"Dot/Axpy", "axpy " + shape, func(k kernels) func() { return func() { k.axpy(alpha, x, y) } }},
		{"Scale", shape, func(k kernels) func() { return func() { k.scale(1, x) } }},
		{"Add", shape, func(k kernels) func() { return func() { k.add(acc, x) } }},
		{"PairAxpy", shape, func(k kernels) func() { return func() { k.pairAxpy(alpha, x, y, acc) } }},
	}
}

// matrixCases are the kernels of an m×d matrix: the weighted sum of its
// rows, both mat-vecs, Gram (for m < d) or the rank updates (for m = d).
func matrixCases(r *rand.Rand, m, d int) []choiceCase {
	a, w, x, dst := randVec(r, m*d), randVec(r, m), randVec(r, d), make([]float32, max(m*m, d))
	const alpha = 1e-6
	shape := fmt.Sprintf("%dx%d", m, d)
	if m < d {
		return []choiceCase{
			{"WeightedSum", shape, func(k kernels) func() { return func() { k.weightedSum(dst[:d], w, a) } }},
			{"Gram", shape, func(k kernels) func() { return func() { k.gram(dst[:m*m], a, m, d) } }},
		}
	}
	y := randVec(r, d)
	return []choiceCase{
		{"MatVec", shape, func(k kernels) func() { return func() { k.matVec(dst[:m], a, m, d, x) } }},
		{"MatTVec", shape, func(k kernels) func() { return func() { k.matTVec(dst[:d], a, m, d, w) } }},
		{"Rank1", shape, func(k kernels) func() { return func() { k.rank1(a, m, d, alpha, w, x) } }},
		{"Rank2", shape, func(k kernels) func() { return func() { k.rank2(a, m, d, alpha, w, x, y, x) } }},
	}
}

// gatherCases are the sums of 50 random rows of a rows×d table, 4096 lists
// of rows cycled so that successive calls read different rows.
func gatherCases(r *rand.Rand, rows, d int) []choiceCase {
	table, w, dst := randVec(r, rows*d), randVec(r, 50), make([]float32, d)
	lists := make([][]int32, 4096)
	for i := range lists {
		lists[i] = make([]int32, 50)
		for j := range lists[i] {
			lists[i][j] = int32(r.IntN(rows))
		}
	}
	next := 0
	ids := func() []int32 {
		next = (next + 1) % len(lists)
		return lists[next]
	}
	shape := fmt.Sprintf("50 of %dx%d", rows, d)
	return []choiceCase{
		{"GatherSum", shape, func(k kernels) func() { return func() { k.gatherSum(dst, table, ids()) } }},
		{"GatherAxpy", shape, func(k kernels) func() { return func() { k.gatherAxpy(dst, table, ids(), w) } }},
	}
}
