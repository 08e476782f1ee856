//go:build !plot

package report

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestWritePNGWithoutPlotTag(t *testing.T) {
	p := LinePlot{Title: "t", X: []float64{1}, Series: []Series{{Name: "a", Y: []float64{1}}}}
	err := p.WritePNG(filepath.Join(t.TempDir(), "p.png"))
	if err == nil || !strings.Contains(err.Error(), "-tags plot") {
		t.Fatalf("WritePNG without the plot tag: error = %v, want one naming -tags plot", err)
	}
}
