package simd

import (
	"log/slog"
	"os"
	"strings"
)

// kernels is one implementation of every kernel. The exported functions
// check shapes and then call the set chosen at init (impl); tests call
// every set in allKernels directly. Kernels assume checked shapes.
type kernels struct {
	name string
	// id names the set to the assembly that jumps to impl's Dot and Axpy
	// kernels (dispatch_amd64.s, dispatch_arm64.s), which reads impl.id.
	id setID
	// dot takes two pointers and a length instead of two slices: on amd64
	// Dot jumps from assembly (dispatch_amd64.s) straight to the chosen
	// set's kernel, and three argument words cost less than six per call.
	dot         func(a, b *float32, n int) float32
	axpy        func(alpha float32, x, y []float32)
	scale       func(alpha float32, x []float32)
	add         func(dst, x []float32)
	weightedSum func(dst, w, x []float32)
	gatherSum   func(dst, table []float32, ids []int32)
	gatherAxpy  func(dst, table []float32, ids []int32, w []float32)
	matVec      func(dst, a []float32, rows, cols int, x []float32)
	matTVec     func(dst, a []float32, rows, cols int, x []float32)
	gram        func(dst, x []float32, m, d int)
	rank1       func(a []float32, rows, cols int, alpha float32, x, y []float32)
	rank2       func(a []float32, rows, cols int, alpha float32, x1, y1, x2, y2 []float32)
	pairAxpy    func(alpha float32, a, b, acc []float32)
}

// setID numbers the kernel sets; the sets of other architectures are
// numbered in their dispatch files.
type setID uint8

// setGo is the id of goKernels.
const setGo setID = 0

// goKernels is the portable pure-Go implementation.
var goKernels = kernels{
	name:        "go",
	id:          setGo,
	dot:         dotGoPtr,
	axpy:        axpyGo,
	scale:       scaleGo,
	add:         addGo,
	weightedSum: weightedSumGo,
	gatherSum:   gatherSumGo,
	gatherAxpy:  gatherAxpyGo,
	matVec:      matVecGo,
	matTVec:     matTVecGo,
	gram:        gramGo,
	rank1:       rank1Go,
	rank2:       rank2Go,
	pairAxpy:    pairAxpyGo,
}

// impl is the kernel set chosen once at package initialisation (see
// chooseKernels), implSets the set running each of its kernels
// (kernelSlots), and implUnavailable the set T2V_SIMD named when this CPU
// or build cannot run it; none is written afterwards. The exported functions
// check shapes and call impl's kernels through the function values, except
// Dot and Axpy, whose calls cost most relative to their work: they call
// dotEntry and axpyEntry, which jump from assembly to the kernel impl.id
// names (on amd64 and arm64).
var impl, implSets, implUnavailable = chooseKernels(os.Getenv(envSet), hostCPU())

// envSet names the environment variable that selects a kernel set by name
// ("avx512", "avx2", "neon", "go") for tests and benchmarks; it is read once
// at program start. Unset or empty selects the fastest set for each kernel.
const envSet = "T2V_SIMD"

// chooseKernels returns the kernel set named want, running every kernel,
// if this CPU and build can run it; else (and when want is empty) the
// fastest set for each kernel on the CPU c (compose). It also returns the
// set of each kernel, and a named set that is not available (Want empty if
// none): it logs nothing, as the program has not set up its logging yet
// when the package initialises (LogUnavailable logs it).
func chooseKernels(want string, c cpuModel) (kernels, [len(kernelSlots)]string, Unavailable) {
	ks := allKernels() // slowest first
	if want == "" {
		k, sets := compose(ks, c)
		return k, sets, Unavailable{}
	}
	if k, ok := setNamed(ks, want); ok {
		var sets [len(kernelSlots)]string
		for i := range sets {
			sets[i] = k.name
		}
		return k, sets, Unavailable{}
	}
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.name
	}
	k, sets := compose(ks, c)
	return k, sets, Unavailable{Want: want, Available: strings.Join(names, ","), Using: k.name}
}

// Unavailable is a kernel set named by T2V_SIMD that this CPU or build
// cannot run: Want, the sets it can run (Available, comma-separated) and
// the widest set used instead (Using), the fastest set running each kernel.
type Unavailable struct {
	Want, Available, Using string
}

// UnavailableMessage is the text of the warning about an Unavailable set.
const UnavailableMessage = "simd: the kernel set named by " + envSet +
	" is not available on this CPU or build; using the fastest"

// UnavailableSet returns the kernel set T2V_SIMD names when this CPU or
// build cannot run it, and false when it names none or one that runs.
func UnavailableSet() (Unavailable, bool) {
	return implUnavailable, implUnavailable.Want != ""
}

// LogUnavailable logs a warning on log when T2V_SIMD names a kernel set
// this CPU or build cannot run, naming it, the sets available and the set
// used. Programs call it once their logging is set up.
func LogUnavailable(log *slog.Logger) {
	if u, ok := UnavailableSet(); ok {
		log.Warn(UnavailableMessage, envSet, u.Want, "available", u.Available, "using", u.Using)
	}
}
