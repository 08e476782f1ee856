// Package report writes the evaluations' output: Markdown tables and, in a
// binary built with the plot tag, PNG line plots.
package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/text2vec-am/text2vec-am/cli"
)

// Table is a Markdown table: a header row and data rows of equal width.
type Table struct {
	Header []string
	Rows   [][]string
}

// AddRow appends a row of cells.
func (t *Table) AddRow(cells ...string) { t.Rows = append(t.Rows, cells) }

// WriteMarkdown writes t as a GitHub-flavoured Markdown table, the first
// column left-aligned and the others right-aligned, columns padded to line up.
func (t *Table) WriteMarkdown(w io.Writer) error {
	width := make([]int, len(t.Header))
	for i, h := range t.Header {
		width[i] = max(3, len([]rune(h)))
	}
	for r, row := range t.Rows {
		if len(row) != len(t.Header) {
			return fmt.Errorf("table row %d has %d cells, header has %d", r+1, len(row), len(t.Header))
		}
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(" " + c + pad + " |")
			} else {
				b.WriteString(" " + pad + c + " |")
			}
		}
		b.WriteString("\n")
	}
	line(t.Header)
	b.WriteString("|")
	for i := range t.Header {
		if i == 0 {
			b.WriteString(" " + strings.Repeat("-", width[i]) + " |")
		} else {
			b.WriteString(" " + strings.Repeat("-", width[i]-1) + ": |")
		}
	}
	b.WriteString("\n")
	for _, row := range t.Rows {
		line(row)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fmtNum formats x with the given number of decimals, "–" for NaN.
func Num(x float64, decimals int) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.*f", decimals, x)
}

// Series is one curve of a line plot: a name and its y values at the plot's x values.
type Series struct {
	Name string
	Y    []float64
	// Flagged is nil, or marks the values (one per x) that are drawn at
	// their y but with an open marker, explained by the plot's FlaggedNote:
	// a value that stands in for one that does not exist, as an undefined ρ
	// counted as 0.
	Flagged []bool
}

// LinePlot describes a line plot written by WritePNG.
type LinePlot struct {
	Title, XLabel, YLabel string
	X                     []float64
	LogX                  bool // log2 x axis (occurrence counts, number of contexts)
	Series                []Series
	// FlaggedNote is the legend entry of the open marker, shown when a
	// series has a flagged value.
	FlaggedNote string
}

// ErrNoPlot says how to get a binary that writes PNG plots.
var ErrNoPlot = errors.New("this binary was built without PNG plots: run it with -tags plot (go run -tags plot . eval …)")

// CheckPlotFlag refuses --plot at once, before any work, in a binary that
// cannot write PNG plots (see PlotSupported).
func CheckPlotFlag(path string) error {
	if path != "" && !PlotSupported {
		return cli.UsageError("--plot %s: %w", path, ErrNoPlot)
	}
	return nil
}
