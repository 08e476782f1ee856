package eval

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTableMarkdown(t *testing.T) {
	tab := Table{Header: []string{"model", "2 sent."}}
	tab.AddRow("AM-ctx", "0.342")
	tab.AddRow("additive − sw", fmtNum(math.NaN(), 3))
	var b bytes.Buffer
	if err := tab.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want := "| model         | 2 sent. |\n" +
		"| ------------- | ------: |\n" +
		"| AM-ctx        |   0.342 |\n" +
		"| additive − sw |       – |\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	tab.AddRow("short")
	if err := tab.WriteMarkdown(&b); err == nil || !strings.Contains(err.Error(), "row 3 has 1 cells") {
		t.Fatalf("ragged row: error = %v", err)
	}
}

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
