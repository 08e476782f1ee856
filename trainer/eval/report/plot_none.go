//go:build !plot

package report

// PlotSupported reports whether this binary can write PNG plots. The default
// build leaves gonum/plot (and its fonts and rasterizer) out, which halves the
// compile time of the text2vec-am binary; build with -tags plot for --plot.
const PlotSupported = false

// WritePNG would render p to a PNG file; without the plot build tag it
// returns an error saying how to get a binary that can.
func (p *LinePlot) WritePNG(path string) error {
	return ErrNoPlot
}
