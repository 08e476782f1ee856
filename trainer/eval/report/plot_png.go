//go:build plot

package report

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
)

// PlotSupported reports whether this binary can write PNG plots: it was built
// with the plot tag, which links gonum/plot.
const PlotSupported = true

// WritePNG renders p to a PNG file at path (6×4 inches). Points whose y is
// not finite (NaN: no value) are left out. A plot that cannot be drawn is an
// error before path is touched: a series whose length is not that of X, an
// x value that is not finite (or not > 0 on a log axis), no point at all, or
// on a log axis points at a single x value. The file is replaced atomically
// (atomicfile): a failure never leaves it truncated or half written.
func (p *LinePlot) WritePNG(path string) error {
	if err := p.check(); err != nil {
		return err
	}
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text = p.XLabel
	pl.Y.Label.Text = p.YLabel
	if p.LogX {
		pl.X.Scale = plot.LogScale{}
		ticks := make([]plot.Tick, len(p.X))
		for i, x := range p.X {
			ticks[i] = plot.Tick{Value: x, Label: fmt.Sprintf("%g", x)}
		}
		pl.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	pl.Legend.Top = true
	pl.Legend.Left = true
	pl.Add(plotter.NewGrid())
	for i, s := range p.Series {
		pts := p.points(s)
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("plot %q: series %q: %w", p.Title, s.Name, err)
		}
		c := plotutil.Color(i)
		l.Color = c
		l.Dashes = plotutil.Dashes(i / 7)
		sc.Color = c
		sc.Shape = plotutil.Shape(i)
		pl.Add(l, sc)
		pl.Legend.Add(s.Name, l, sc)
	}
	p.setYRange(pl)
	pl.BackgroundColor = color.White
	img, err := render(pl)
	if err != nil {
		return fmt.Errorf("plot %q: %w", p.Title, err)
	}
	return atomicfile.Write(path, atomicfile.Readable, func(w *bufio.Writer) error {
		_, err := img.WriteTo(w)
		return err
	})
}

// check returns why p cannot be drawn, or nil.
func (p *LinePlot) check() error {
	for _, x := range p.X {
		if math.IsNaN(x) || math.IsInf(x, 0) || (p.LogX && x <= 0) {
			return fmt.Errorf("plot %q: x value %g cannot be drawn (want finite values, > 0 on a log axis)", p.Title, x)
		}
	}
	xs := map[float64]bool{}
	for _, s := range p.Series {
		if len(s.Y) != len(p.X) {
			return fmt.Errorf("plot %q: series %q has %d values for %d x values", p.Title, s.Name, len(s.Y), len(p.X))
		}
		for _, pt := range p.points(s) {
			xs[pt.X] = true
		}
	}
	switch {
	case len(xs) == 0:
		return fmt.Errorf("plot %q: nothing to plot: no series has a value", p.Title)
	case p.LogX && len(xs) < 2:
		return fmt.Errorf("plot %q: nothing to plot on a log axis: every value is at one x", p.Title)
	}
	return nil
}

// points returns the points of s that are drawn: those whose y is finite.
func (p *LinePlot) points(s Series) plotter.XYs {
	var pts plotter.XYs
	for j, y := range s.Y {
		if !math.IsNaN(y) && !math.IsInf(y, 0) {
			pts = append(pts, plotter.XY{X: p.X[j], Y: y})
		}
	}
	return pts
}

// setYRange sets the y axis to the drawn values, with room above the curves
// for the legend (about 14 points per entry of a 4-inch-high plot), so that
// it never hides a curve.
func (p *LinePlot) setYRange(pl *plot.Plot) {
	pl.Y.Min, pl.Y.Max = math.Inf(1), math.Inf(-1)
	for _, s := range p.Series {
		for _, pt := range p.points(s) {
			pl.Y.Min, pl.Y.Max = math.Min(pl.Y.Min, pt.Y), math.Max(pl.Y.Max, pt.Y)
		}
	}
	if pl.Y.Min <= pl.Y.Max {
		span := math.Max(pl.Y.Max-pl.Y.Min, 1e-9)
		frac := math.Min(0.6, float64(len(p.Series))*14/250)
		pl.Y.Min -= 0.05 * span
		pl.Y.Max += span * frac / (1 - frac)
	}
}

// render draws pl on a 6×4-inch PNG canvas in memory. gonum/plot panics on
// some input (a log axis whose range reaches 0); that panic is returned as
// an error, before any file is created.
func render(pl *plot.Plot) (img io.WriterTo, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("gonum/plot: %v", r)
		}
	}()
	return pl.WriterTo(6*vg.Inch, 4*vg.Inch, "png")
}
