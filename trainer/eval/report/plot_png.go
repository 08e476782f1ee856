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
	"gonum.org/v1/plot/vg/draw"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
)

// PlotSupported reports whether this binary can write PNG plots: it was built
// with the plot tag, which links gonum/plot.
const PlotSupported = true

// WritePNG renders p to a PNG file at path (6×4 inches). Each series is a
// line through its points, drawn with filled markers; a flagged point
// (Series.Flagged) is drawn at its value with the open marker of the same
// shape, and a legend entry (FlaggedNote) says what the open marker means.
// Points whose y is not finite (NaN: no value) are left out. A plot that
// cannot be drawn is an error before path is touched: a series whose length
// (or that of its flags) is not that of X, an x value that is not finite
// (or not > 0 on a log axis), no point at all, or on a log axis points at a
// single x value. The file is replaced atomically (atomicfile): a failure
// never leaves it truncated or half written.
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
		if err := p.addSeries(pl, i, s); err != nil {
			return err
		}
	}
	if err := p.addFlaggedNote(pl); err != nil {
		return err
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

// addSeries adds s, the i-th series, to pl and its legend (seriesPlotters).
func (p *LinePlot) addSeries(pl *plot.Plot, i int, s Series) error {
	ps, err := p.seriesPlotters(i, s)
	if err != nil || ps.line == nil {
		return err
	}
	pl.Add(ps.line)
	if len(ps.filled.XYs) > 0 {
		pl.Add(ps.filled)
	}
	if ps.open != nil {
		pl.Add(ps.open)
	}
	pl.Legend.Add(s.Name, ps.line, ps.filled)
	return nil
}

// seriesPlot holds the plotters of a series: the line through every point,
// the filled markers of the points not flagged (none when all are, but
// still the series' legend marker) and the open markers of the flagged
// ones (nil when it has none); line is nil for a series without a point.
type seriesPlot struct {
	line         *plotter.Line
	filled, open *plotter.Scatter
}

// seriesPlotters returns the plotters of s, the i-th series: colour
// plotutil.Color(i), dashes plotutil.Dashes(i/7), markers markerShapes(i).
func (p *LinePlot) seriesPlotters(i int, s Series) (seriesPlot, error) {
	pts := p.points(s)
	if len(pts) == 0 {
		return seriesPlot{}, nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return seriesPlot{}, fmt.Errorf("plot %q: series %q: %w", p.Title, s.Name, err)
	}
	c := plotutil.Color(i)
	l.Color = c
	l.Dashes = plotutil.Dashes(i / 7)
	filledShape, openShape := markerShapes(i)
	plain, flagged := p.splitFlagged(s)
	out := seriesPlot{line: l}
	if out.filled, err = newMarkers(plain, c, filledShape); err == nil && len(flagged) > 0 {
		out.open, err = newMarkers(flagged, c, openShape)
	}
	if err != nil {
		return seriesPlot{}, fmt.Errorf("plot %q: series %q: %w", p.Title, s.Name, err)
	}
	return out, nil
}

// newMarkers returns a scatter of pts drawn with shape in colour c.
func newMarkers(pts plotter.XYs, c color.Color, shape draw.GlyphDrawer) (*plotter.Scatter, error) {
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.Color = c
	sc.Shape = shape
	if _, open := shape.(hollowGlyph); open {
		sc.Radius = vg.Points(3.5) // the filled markers' 2.5 points, and a border
	}
	return sc, nil
}

// markerShapes returns the filled marker of the i-th series (circle, box or
// pyramid) and its open counterpart (hollowGlyph of the same shape), so that
// an open marker reads as a flagged point of the same series.
func markerShapes(i int) (filled, open draw.GlyphDrawer) {
	shapes := [...]draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
	filled = shapes[i%len(shapes)]
	return filled, hollowGlyph{filled}
}

// hollowGlyph draws shape in the glyph's colour with a white inside (a
// concentric shape of half the radius), which hides the line under it.
type hollowGlyph struct{ shape draw.GlyphDrawer }

// DrawGlyph implements draw.GlyphDrawer.
func (g hollowGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	g.shape.DrawGlyph(c, sty, pt) // the canvas colour is sty.Color (draw.Canvas.DrawGlyph)
	inside := sty
	inside.Radius /= 2
	c.SetColor(color.White)
	g.shape.DrawGlyph(c, inside, pt)
	c.SetColor(sty.Color)
}

// addFlaggedNote adds to pl's legend the entry FlaggedNote with a black
// open marker, when some drawn point is flagged.
func (p *LinePlot) addFlaggedNote(pl *plot.Plot) error {
	if !p.hasFlagged() {
		return nil
	}
	note := p.FlaggedNote
	if note == "" {
		note = "open marker: flagged value"
	}
	_, open := markerShapes(0)
	thumb, err := newMarkers(plotter.XYs{{}}, color.Black, open)
	if err != nil {
		return fmt.Errorf("plot %q: %w", p.Title, err)
	}
	pl.Legend.Add(note, thumb)
	return nil
}

// hasFlagged reports whether some drawn point of p is flagged.
func (p *LinePlot) hasFlagged() bool {
	for _, s := range p.Series {
		if _, flagged := p.splitFlagged(s); len(flagged) > 0 {
			return true
		}
	}
	return false
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
		if s.Flagged != nil && len(s.Flagged) != len(p.X) {
			return fmt.Errorf("plot %q: series %q has %d flags for %d x values", p.Title, s.Name, len(s.Flagged), len(p.X))
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
		if drawn(y) {
			pts = append(pts, plotter.XY{X: p.X[j], Y: y})
		}
	}
	return pts
}

// splitFlagged returns the drawn points of s (points) that are not flagged
// and those that are.
func (p *LinePlot) splitFlagged(s Series) (plain, flagged plotter.XYs) {
	for j, y := range s.Y {
		if !drawn(y) {
			continue
		}
		if pt := (plotter.XY{X: p.X[j], Y: y}); j < len(s.Flagged) && s.Flagged[j] {
			flagged = append(flagged, pt)
		} else {
			plain = append(plain, pt)
		}
	}
	return plain, flagged
}

// drawn reports whether a point of value y is drawn: y is finite.
func drawn(y float64) bool { return !math.IsNaN(y) && !math.IsInf(y, 0) }

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
		entries := len(p.Series)
		if p.hasFlagged() {
			entries++ // the FlaggedNote entry
		}
		frac := math.Min(0.6, float64(entries)*14/250)
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
