package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestTableMarkdown(t *testing.T) {
	tab := Table{Header: []string{"model", "2 sent."}}
	tab.AddRow("AM-ctx", "0.342")
	tab.AddRow("additive − sw", Num(math.NaN(), 3))
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
