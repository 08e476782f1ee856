package simd

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// testSet is a kernel set, or a mix of sets, the set running each slot,
// and a label naming the mix: the widest set and the slots another set runs,
// as in "avx512(avx2:WeightedSum,avx2:MatTVec)".
type testSet struct {
	kernels
	sets  [len(kernelSlots)]string
	label string
}

// testSets returns every kernel set usable on this CPU and every distinct
// mix of them that an override composes for its sample CPU. Two mixes of the
// same sets (the AVX-512 set with different AVX2 kernels) share a name and
// are both kept, with different labels.
func testSets() []testSet {
	ks := allKernels()
	var out []testSet
	for _, k := range ks {
		var sets [len(kernelSlots)]string
		for i := range sets {
			sets[i] = k.name
		}
		out = append(out, testSet{k, sets, k.name})
	}
	for _, o := range overrides {
		k, sets := compose(ks, o.sample)
		if !slices.ContainsFunc(out, func(x testSet) bool { return x.sets == sets }) {
			out = append(out, testSet{k, sets, mixLabel(ks[len(ks)-1].name, sets)})
		}
	}
	return out
}

// mixLabel names a composition as SetsString does, as one subtest name
// (no spaces; "/" in a slot's name becomes "-").
func mixLabel(base string, sets [len(kernelSlots)]string) string {
	return strings.NewReplacer(" ", "", "/", "-").Replace(formatSets(base, sets))
}

// probe runs the kernel of slot i of k on fixed random input and returns
// its output, so that two sets' kernels can be compared bit for bit.
func probe(k kernels, i int) []float32 {
	const m, d = 7, 203
	r := rand.New(rand.NewPCG(61, 62))
	x, y, w := randVec(r, m*d), randVec(r, m*d), randVec(r, m)
	ids := []int32{3, 0, 6, 3, 1}
	out := make([]float32, m*d)
	switch kernelSlots[i].name {
	case "Dot/Axpy":
		k.axpy(0.3, x[:d], y[:d])
		return append(y[:d:d], dotOf(k, x, y))
	case "Scale":
		k.scale(0.3, x)
		return x
	case "Add":
		k.add(x, y)
		return x
	case "WeightedSum":
		k.weightedSum(out[:d], w, x)
	case "GatherSum":
		k.gatherSum(out[:d], x, ids)
	case "GatherAxpy":
		k.gatherAxpy(out[:d], x, ids, w[:len(ids)])
	case "MatVec":
		k.matVec(out[:m], x, m, d, y[:d])
	case "MatTVec":
		k.matTVec(out[:d], x, m, d, w)
	case "Gram":
		k.gram(out[:m*m], x, m, d)
	case "Rank1":
		k.rank1(x, m, d, 0.3, w, y[:d])
		return x
	case "Rank2":
		k.rank2(x, m, d, 0.3, w, y[:d], w, y[d:2*d])
		return x
	case "PairAxpy":
		k.pairAxpy(0.3, x[:d], y[:d], out[:d])
	default:
		panic("probe: no case for " + kernelSlots[i].name)
	}
	return out
}

// TestComposeOverrides checks that each override's mix runs every kernel
// from the set it names (where this CPU runs it) and the others from the
// widest set, bit for bit, and reports the same sets.
func TestComposeOverrides(t *testing.T) {
	if kernelSlots[0].name != "Dot/Axpy" {
		t.Fatalf("slot 0 is %s: Dot's set is read from slot 0", kernelSlots[0].name)
	}
	ks := allKernels()
	best := ks[len(ks)-1]
	for _, o := range overrides {
		if !o.match(o.sample) {
			t.Errorf("override for %+v does not match its sample", o.sample)
		}
		for name := range o.slots {
			if !slices.ContainsFunc(kernelSlots[:], func(s kernelSlot) bool { return s.name == name }) {
				t.Errorf("override for %+v names no kernel %q", o.sample, name)
			}
		}
		k, sets := compose(ks, o.sample)
		for i, s := range kernelSlots {
			want, ok := setNamed(ks, o.slots[s.name])
			if !ok {
				want = best
			}
			if sets[i] != want.name {
				t.Errorf("%+v: %s reported from %s, want %s", o.sample, s.name, sets[i], want.name)
			}
			got, exp := probe(k, i), probe(want, i)
			for j := range got {
				if math.Float32bits(got[j]) != math.Float32bits(exp[j]) {
					t.Fatalf("%+v: %s [%d] = %g, set %s gives %g", o.sample, s.name, j, got[j], want.name, exp[j])
				}
			}
		}
	}
}

// TestComposeUnknownCPU checks that no override matches another vendor or
// CPUs that differ from an Intel row's sample in one field only (Rocket
// Lake: model 167 without AMX; an AMX Xeon of another model; another family;
// an AMD CPU of model 167 or 207), and that such a CPU runs the widest set for
// every kernel.
func TestComposeUnknownCPU(t *testing.T) {
	ks := allKernels()
	for _, c := range []cpuModel{
		{vendor: "NoSuchVendor"},
		{vendor: "GenuineIntel", family: 6, model: 0xa7},
		{vendor: "GenuineIntel", family: 6, model: 0x8f, amx: true},
		{vendor: "GenuineIntel", family: 15, model: 0xa7, amx: true},
		{vendor: "AuthenticAMD", family: 6, model: 0xa7, amx: true},
		{vendor: "GenuineIntel", family: 15, model: 0xcf},
		{vendor: "AuthenticAMD", family: 6, model: 0xcf},
	} {
		for _, o := range overrides {
			if o.match(c) {
				t.Errorf("the override for %+v matches %+v", o.sample, c)
			}
		}
		k, sets := compose(ks, c)
		if want := ks[len(ks)-1].name; k.name != want {
			t.Errorf("%+v: name %q, want %q", c, k.name, want)
		}
		for i, s := range sets {
			if s != k.name {
				t.Errorf("%+v: %s from %s, want %s", c, kernelSlots[i].name, s, k.name)
			}
		}
	}
}

func TestSets(t *testing.T) {
	got := Sets()
	if len(got) != len(kernelSlots) {
		t.Fatalf("Sets() has %d entries, want %d", len(got), len(kernelSlots))
	}
	for i, ks := range got {
		if ks.Kernel != kernelSlots[i].name || ks.Set != implSets[i] {
			t.Errorf("Sets()[%d] = %+v, want {%s %s}", i, ks, kernelSlots[i].name, implSets[i])
		}
		if _, ok := setNamed(allKernels(), ks.Set); !ok {
			t.Errorf("%s runs from %q, not a set of this CPU", ks.Kernel, ks.Set)
		}
	}
	t.Logf("CPU %+v: %s", hostCPU(), SetsString())
}

// TestOverridesNameBuiltSets checks that every set the table names is one
// this build has (on a build that reads the CPU's model; on the others no
// override ever applies), so that a misspelt or removed set cannot leave an
// override silently doing nothing.
func TestOverridesNameBuiltSets(t *testing.T) {
	if hostCPU() == (cpuModel{}) {
		t.Skip("this build does not read the CPU's model: no override applies")
	}
	built := builtKernels()
	for _, o := range overrides {
		for slot, set := range o.slots {
			if _, ok := setNamed(built, set); !ok {
				t.Errorf("the override for %+v runs %s from %q, a set this build does not have", o.sample, slot, set)
			}
		}
	}
}

// TestComposeWithoutWidestSet checks each override on a CPU of its family
// that lacks the widest set of the build (Zen 3 beside Zen 4, both family
// 25, only Zen 4 with AVX-512): every kernel runs from the widest set that
// CPU has, or from the override's set when it has that one too.
func TestComposeWithoutWidestSet(t *testing.T) {
	built := builtKernels()
	if len(built) < 3 {
		t.Skip("this build has fewer than two assembly sets")
	}
	narrower := built[:len(built)-1]
	for _, o := range overrides {
		_, sets := compose(narrower, o.sample)
		for i, s := range kernelSlots {
			want := narrower[len(narrower)-1].name
			if k, ok := setNamed(narrower, o.slots[s.name]); ok {
				want = k.name
			}
			if sets[i] != want {
				t.Errorf("%+v without %s: %s from %s, want %s", o.sample, built[len(built)-1].name, s.name, sets[i], want)
			}
		}
	}
}

// TestComposeModel207AnyAMX checks that Intel model 207 composes the same
// kernels whether or not the CPU reports AMX (a virtual machine may hide it).
func TestComposeModel207AnyAMX(t *testing.T) {
	ks := allKernels()
	without := cpuModel{vendor: "GenuineIntel", family: 6, model: 0xcf}
	with := without
	with.amx = true
	_, a := compose(ks, without)
	_, b := compose(ks, with)
	if a != b {
		t.Errorf("model 207 without AMX runs %v, with AMX %v", a, b)
	}
	matched := 0
	for _, o := range overrides {
		if o.match(without) && o.match(with) {
			matched++
		}
	}
	if matched != 1 {
		t.Errorf("%d override rows match model 207 with and without AMX, want 1", matched)
	}
}
