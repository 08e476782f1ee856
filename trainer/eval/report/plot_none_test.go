//go:build !plot

package report

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
)

func TestWritePNGWithoutPlotTag(t *testing.T) {
	p := LinePlot{Title: "t", X: []float64{1}, Series: []Series{{Name: "a", Y: []float64{1}}}}
	err := p.WritePNG(filepath.Join(t.TempDir(), "p.png"))
	if !errors.Is(err, ErrNoPlot) || !strings.Contains(err.Error(), "-tags plot") {
		t.Fatalf("WritePNG without the plot tag: error = %v, want ErrNoPlot naming -tags plot", err)
	}
	err = CheckPlotFlag("p.png")
	if !errors.Is(err, ErrNoPlot) || !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), "--plot p.png") {
		t.Errorf("CheckPlotFlag: %v, want a usage error wrapping ErrNoPlot", err)
	}
	if err := CheckPlotFlag(""); err != nil {
		t.Errorf("CheckPlotFlag without --plot: %v", err)
	}
}
