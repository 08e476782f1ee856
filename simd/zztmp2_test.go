package simd

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/viterin/vek/vek32"
)

func minTime(f func()) float64 {
	best := 1e18
	for w := 0; w < 3000; w++ {
		t0 := time.Now()
		for i := 0; i < 200; i++ {
			f()
		}
		if e := float64(time.Since(t0).Nanoseconds()) / 200; e < best {
			best = e
		}
	}
	return best
}

func TestZZMin(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	for _, d := range []int{100, 300} {
		r := rand.New(rand.NewPCG(1, 1))
		x, y := randVec(r, d), randVec(r, d)
		fmt.Printf("d=%d Dot %.2f dotAVX512 %.2f Axpy %.2f vek32.Dot %.2f plain %.2f\n", d,
			minTime(func() { sink = Dot(x, y) }),
			minTime(func() { sink = dotAVX512(x, y) }),
			minTime(func() { Axpy(1e-6, x, y) }),
			minTime(func() { sink = vek32.Dot(x, y) }),
			minTime(func() {
				var s float32
				for i := range x {
					s += x[i] * y[i]
				}
				sink = s
			}),
		)
	}
}
