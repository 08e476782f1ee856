//go:build plot

package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
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

// A plot that cannot be drawn (one x value on a log axis, as eval rare-pairs
// --max-k 1 gives, or no value at all) is an error before the file is
// touched: an existing plot keeps its bytes, and no temporary file is left.
func TestLinePlotPNGUnplottableKeepsFile(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		p    LinePlot
		want string
	}{
		{"one x on a log axis", LinePlot{Title: "t", LogX: true, X: []float64{1}, Series: []Series{{Name: "a", Y: []float64{0.5}}}}, "every value is at one x"},
		{"every y NaN", LinePlot{Title: "t", LogX: true, X: []float64{1, 2}, Series: []Series{{Name: "a", Y: []float64{nan, nan}}}}, "nothing to plot"},
		{"one x with a value", LinePlot{Title: "t", LogX: true, X: []float64{1, 2}, Series: []Series{{Name: "a", Y: []float64{nan, 3}}}}, "every value is at one x"},
		{"no series", LinePlot{Title: "t", X: []float64{1, 2}}, "nothing to plot"},
		{"x = 0 on a log axis", LinePlot{Title: "t", LogX: true, X: []float64{0, 1}, Series: []Series{{Name: "a", Y: []float64{1, 2}}}}, "> 0 on a log axis"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "p.png")
		if err := os.WriteFile(path, []byte("old plot"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := c.p.WritePNG(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
		if data, err := os.ReadFile(path); err != nil || string(data) != "old plot" {
			t.Errorf("%s: the existing file holds %q (%v), want it untouched", c.name, data, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%s: %d files in the directory, want only the plot", c.name, len(ents))
		}
	}
}

// A panic of gonum/plot while drawing (here a log axis padded to reach 0)
// comes back from render as an error.
func TestRenderPanicIsError(t *testing.T) {
	pl := plot.New()
	pl.X.Scale = plot.LogScale{}
	l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	pl.Add(l)
	if img, err := render(pl); img != nil || err == nil || !strings.Contains(err.Error(), "log scale") {
		t.Fatalf("render = %v, %v: want the panic as an error", img, err)
	}
}

// A flagged value (an undefined ρ counted as 0) is drawn at its value with
// the open marker of its series' shape, in the series' colour, and the line
// still goes through it; the other points keep the filled marker.
func TestLinePlotFlaggedPointsOpen(t *testing.T) {
	p := LinePlot{Title: "t", LogX: true, X: []float64{1, 2, 4, 8}, FlaggedNote: "open: undefined",
		Series: []Series{
			{Name: "a", Y: []float64{0.5, 0, 0.6, math.NaN()}, Flagged: []bool{false, true, false, true}},
			{Name: "b", Y: []float64{0.1, 0.2, 0.3, 0.4}},
		}}
	a, err := p.seriesPlotters(0, p.Series[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(a.line.XYs) != 3 || len(a.filled.XYs) != 2 || a.open == nil || len(a.open.XYs) != 1 || a.open.XYs[0] != (plotter.XY{X: 2, Y: 0}) {
		t.Fatalf("line %v, filled %v, open %v: want the flagged point (2, 0) open, the NaN left out", a.line.XYs, a.filled.XYs, a.open)
	}
	if _, ok := a.filled.Shape.(draw.CircleGlyph); !ok {
		t.Errorf("filled marker %T, want a filled circle", a.filled.Shape)
	}
	if a.open.Shape != (hollowGlyph{draw.CircleGlyph{}}) || a.open.Color != a.line.Color {
		t.Errorf("open marker %#v in %v, want a ring in the line's colour %v", a.open.Shape, a.open.Color, a.line.Color)
	}
	b, err := p.seriesPlotters(1, p.Series[1])
	if err != nil || b.open != nil || len(b.filled.XYs) != 4 {
		t.Fatalf("series without flags: open %v, filled %v, %v", b.open, b.filled, err)
	}
	if _, ok := b.filled.Shape.(draw.BoxGlyph); !ok {
		t.Errorf("second series' marker %T, want a filled box", b.filled.Shape)
	}
	if !p.hasFlagged() {
		t.Error("hasFlagged: false, want the legend note")
	}
	dir := t.TempDir()
	flagged, plain := filepath.Join(dir, "flagged.png"), filepath.Join(dir, "plain.png")
	if err := p.WritePNG(flagged); err != nil {
		t.Fatal(err)
	}
	p.Series[0].Flagged = nil
	if p.hasFlagged() {
		t.Error("hasFlagged without flags: true")
	}
	if err := p.WritePNG(plain); err != nil {
		t.Fatal(err)
	}
	f, _ := os.ReadFile(flagged)
	g, _ := os.ReadFile(plain)
	if bytes.Equal(f, g) {
		t.Error("the plot with a flagged point is the plot without: the flag is not drawn")
	}
	p.Series[0].Flagged = []bool{true}
	if err := p.WritePNG(plain); err == nil || !strings.Contains(err.Error(), "1 flags for 4 x values") {
		t.Errorf("flags of the wrong length: %v, want an error", err)
	}
}
