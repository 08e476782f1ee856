//go:build plot

package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestLinePlotPNG(t *testing.T) {
	p := LinePlot{Title: "t", XLabel: "x", YLabel: "y", LogX: true, X: []float64{1, 2, 4},
		Series: []Series{{Name: "a", Y: []float64{1, 2, math.NaN()}}, {Name: "b", Y: []float64{3, 2, 1}}}}
	path := filepath.Join(t.TempDir(), "p.png")
	if err := p.WritePNG(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 1000 || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Fatalf("not a PNG: %d bytes, %v", len(data), err)
	}
	p.Series[0].Y = p.Series[0].Y[:2]
	if err := p.WritePNG(path); err == nil {
		t.Fatal("series of the wrong length: want an error")
	}
}
