package simd

import "strings"

// KernelSet names a kernel (or kernels that always run from one set) and
// the set that runs it in this process: "avx512", "avx2", "neon" or "go".
type KernelSet struct {
	Kernel string
	Set    string
}

// kernelSlot is one exported kernel of a set: use copies it from src into
// dst. Dot and Axpy are one slot, because the assembly that reaches them
// (dotEntry, axpyEntry) follows the single id of the set in use.
type kernelSlot struct {
	name string
	use  func(dst *kernels, src kernels)
}

// kernelSlots lists every slot of a kernel set, in the order Sets reports
// them. It is a fixed table, never written.
var kernelSlots = [...]kernelSlot{
	{"Dot/Axpy", func(d *kernels, s kernels) { d.id, d.dot, d.axpy = s.id, s.dot, s.axpy }},
	{"Scale", func(d *kernels, s kernels) { d.scale = s.scale }},
	{"Add", func(d *kernels, s kernels) { d.add = s.add }},
	{"WeightedSum", func(d *kernels, s kernels) { d.weightedSum = s.weightedSum }},
	{"GatherSum", func(d *kernels, s kernels) { d.gatherSum = s.gatherSum }},
	{"GatherAxpy", func(d *kernels, s kernels) { d.gatherAxpy = s.gatherAxpy }},
	{"MatVec", func(d *kernels, s kernels) { d.matVec = s.matVec }},
	{"MatTVec", func(d *kernels, s kernels) { d.matTVec = s.matTVec }},
	{"Gram", func(d *kernels, s kernels) { d.gram = s.gram }},
	{"Rank1", func(d *kernels, s kernels) { d.rank1 = s.rank1 }},
	{"Rank2", func(d *kernels, s kernels) { d.rank2 = s.rank2 }},
	{"PairAxpy", func(d *kernels, s kernels) { d.pairAxpy = s.pairAxpy }},
}

// cpuModel identifies a CPU design: its vendor string and its display
// family and model as CPUID reports them (zero where unknown), and whether
// it reports AMX tiles (Intel's server cores from Sapphire Rapids on), which
// tells a server Xeon from a client design that a virtual machine's model
// number may name.
type cpuModel struct {
	vendor        string
	family, model uint32
	amx           bool
}

// override gives the set that runs some slots on the CPUs it matches,
// instead of the fastest set by features.
type override struct {
	match func(c cpuModel) bool
	// sample is a CPU that match accepts, for tests.
	sample cpuModel
	slots  map[string]string // slot name → set name
}

// overrides is the table of measured exceptions to "the widest set is the
// fastest". BenchmarkChoice measures every kernel from every set on the CPU
// at hand and prints the row that CPU calls for (TestOverridesNameBuiltSets
// keeps the sets named here ones the build has). It is a fixed table, never
// written. CPUs it does not match run the widest set.
var overrides = [...]override{{
	// AMD Zen 4: the AVX-512 kernels of the L2-bound streaming kernels are
	// slower than the AVX2 ones (quiet family 25 model 17, time ÷ the
	// AVX-512 kernel's: MatVec and MatTVec 0.87–0.90, WeightedSum
	// 0.92–0.95, Dot 0.95–0.98). Zen 3 is
	// family 25 too, without AVX-512: its widest set is AVX2, which
	// BenchmarkChoice measured fastest on every kernel (family 25 model 1),
	// so the row changes nothing there.
	match:  func(c cpuModel) bool { return c.vendor == "AuthenticAMD" && c.family == 0x19 },
	sample: cpuModel{vendor: "AuthenticAMD", family: 0x19, model: 0x11},
	slots:  map[string]string{"Dot/Axpy": "avx2", "WeightedSum": "avx2", "MatVec": "avx2", "MatTVec": "avx2"},
}, {
	// AMD Zen 5: the AVX2 MatVec is about 7 % faster than the AVX-512 one
	// at 300×300 on a quiet family 26 model 2, and 2–13 % faster or level at
	// 200×200 and 300×300 in three runs under load. The other
	// kernels are as fast or faster from the AVX-512 set, but for GatherSum
	// on rows in cache, where the AVX2 kernel gains less than the AVX-512
	// one gains on a table in DRAM.
	match:  func(c cpuModel) bool { return c.vendor == "AuthenticAMD" && c.family == 0x1a },
	sample: cpuModel{vendor: "AuthenticAMD", family: 0x1a, model: 0x02},
	slots:  map[string]string{"MatVec": "avx2"},
}, {
	// A server Xeon with AMX (Sapphire Rapids or later) that a KVM guest
	// sees as family 6 model 167: the AVX2 MatTVec and WeightedSum (the
	// column-blocked sums of rows) are faster than the AVX-512 ones in each
	// of ten runs of BenchmarkChoice (time ÷ the AVX-512 kernel's: MatTVec
	// 0.78–0.83, WeightedSum 0.90–0.95); the other kernels are level or
	// faster from the AVX-512 set in most runs (GatherSum and Rank1 came
	// out faster from AVX2 by more than 5 % in one or two runs of ten, and
	// stay on AVX-512). Only this presentation is measured: the
	// row leaves out model 167 without AMX (Rocket Lake) and every other
	// Intel model.
	match:  func(c cpuModel) bool { return c.vendor == "GenuineIntel" && c.family == 6 && c.model == 0xa7 && c.amx },
	sample: cpuModel{vendor: "GenuineIntel", family: 6, model: 0xa7, amx: true},
	slots:  map[string]string{"WeightedSum": "avx2", "MatTVec": "avx2"},
}, {
	// Intel family 6 model 207 (Emerald Rapids, a server-only design, so
	// the row holds whether or not a virtual machine reports its AMX
	// tiles): in 21 runs of BenchmarkChoice (quiet, no AMX reported),
	// time ÷ the AVX-512 kernel's, MatTVec 0.74–0.88, WeightedSum
	// 0.86–0.95 and Rank1 0.86–0.98, the last under 0.95 in 18 runs (in six
	// more, by shape: 0.86–0.89 at 200×200, 0.92–1.00 at 300×300); every
	// other kernel level or faster from the AVX-512 set in most runs (MatVec
	// 0.94–0.99, GatherSum 0.88–1.06, GatherAxpy 0.92–1.09: under 0.95 in
	// four, four and two runs, medians 0.96, 1.00, 0.97).
	match:  func(c cpuModel) bool { return c.vendor == "GenuineIntel" && c.family == 6 && c.model == 0xcf },
	sample: cpuModel{vendor: "GenuineIntel", family: 6, model: 0xcf},
	slots:  map[string]string{"WeightedSum": "avx2", "MatTVec": "avx2", "Rank1": "avx2"},
}}

// compose returns the widest set of ks with the slots that an override
// matching c names taken from the set it names (when this CPU runs it),
// and the set running each slot.
func compose(ks []kernels, c cpuModel) (kernels, [len(kernelSlots)]string) {
	best := ks[len(ks)-1]
	k := best
	var sets [len(kernelSlots)]string
	for i := range sets {
		sets[i] = best.name
	}
	for _, o := range overrides {
		if !o.match(c) {
			continue
		}
		for i, s := range kernelSlots {
			if src, ok := setNamed(ks, o.slots[s.name]); ok {
				s.use(&k, src)
				sets[i] = src.name
			}
		}
	}
	if mixed := distinct(sets[:]); len(mixed) > 1 {
		k.name = strings.Join(mixed, "+")
	}
	return k, sets
}

// setNamed returns the set of ks called name.
func setNamed(ks []kernels, name string) (kernels, bool) {
	for _, k := range ks {
		if name != "" && k.name == name {
			return k, true
		}
	}
	return kernels{}, false
}

// distinct returns the names in sets once each, in order of first use.
func distinct(sets []string) []string {
	var out []string
	for _, s := range sets {
		found := false
		for _, o := range out {
			found = found || o == s
		}
		if !found {
			out = append(out, s)
		}
	}
	return out
}

// Sets reports, for every kernel, the set that runs it in this process.
func Sets() []KernelSet {
	out := make([]KernelSet, len(kernelSlots))
	for i, s := range kernelSlots {
		out[i] = KernelSet{Kernel: s.name, Set: implSets[i]}
	}
	return out
}

// SetsString reports Sets as one line: the widest set this CPU runs, and
// the kernels another set runs, as in "avx512" or
// "avx512 (avx2: Dot/Axpy, avx2: WeightedSum, avx2: MatVec)".
func SetsString() string {
	ks := allKernels()
	return formatSets(ks[len(ks)-1].name, implSets)
}

// formatSets writes sets, the set of each slot, as SetsString does: base,
// then each slot that another set runs.
func formatSets(base string, sets [len(kernelSlots)]string) string {
	var other []string
	for i, s := range kernelSlots {
		if sets[i] != base {
			other = append(other, sets[i]+": "+s.name)
		}
	}
	if len(other) == 0 {
		return base
	}
	return base + " (" + strings.Join(other, ", ") + ")"
}
