//go:build plot

package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PlotSupported reports whether this binary can write PNG plots: it was built
// with the plot tag, which links gonum/plot.
const PlotSupported = true

// WritePNG renders p to a PNG file at path (6×4 inches). NaN points are left out.
func (p *LinePlot) WritePNG(path string) error {
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
		if len(s.Y) != len(p.X) {
			return fmt.Errorf("plot %q: series %q has %d values for %d x values", p.Title, s.Name, len(s.Y), len(p.X))
		}
		var pts plotter.XYs
		for j, y := range s.Y {
			if !math.IsNaN(y) {
				pts = append(pts, plotter.XY{X: p.X[j], Y: y})
			}
		}
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
	// Room above the curves for the legend (about 14 points per entry of a
	// 4-inch-high plot), so that it never hides a curve.
	pl.Y.Min, pl.Y.Max = math.Inf(1), math.Inf(-1)
	for _, s := range p.Series {
		for _, y := range s.Y {
			if !math.IsNaN(y) {
				pl.Y.Min, pl.Y.Max = math.Min(pl.Y.Min, y), math.Max(pl.Y.Max, y)
			}
		}
	}
	if pl.Y.Min <= pl.Y.Max {
		span := math.Max(pl.Y.Max-pl.Y.Min, 1e-9)
		frac := math.Min(0.6, float64(len(p.Series))*14/250)
		pl.Y.Min -= 0.05 * span
		pl.Y.Max += span * frac / (1 - frac)
	}
	pl.BackgroundColor = color.White
	if err := pl.Save(6*vg.Inch, 4*vg.Inch, path); err != nil {
		return fmt.Errorf("write plot %s: %w", path, err)
	}
	return nil
}
