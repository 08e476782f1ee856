package demo

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestNextStepsExist checks the demo's last lines: the step without Docker
// (serve, then one curl) comes before the compose one, a --model is carried
// over, and every README section they name is a heading of README.md.
func TestNextStepsExist(t *testing.T) {
	_, out := runSynthetic(t, Options{ModelName: "synthetic", Top: 3, Show: -1, ServeModel: "/models/my.am"})
	serve, curl, compose := strings.Index(out, ServeCommand+" --model /models/my.am"), strings.Index(out, CurlCommand), strings.Index(out, NextCommand)
	if serve < 0 || curl < 0 || compose < 0 || !(serve < curl && curl < compose) {
		t.Errorf("next steps out of order or missing (serve %d, curl %d, compose %d):\n%s", serve, curl, compose, out[max(0, len(out)-800):])
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ReadmeSections {
		if !strings.Contains(out, s) {
			t.Errorf("the demo's output does not name section %q", s)
		}
		if !regexp.MustCompile(`(?m)^#+ ` + regexp.QuoteMeta(s) + `\s*$`).Match(readme) {
			t.Errorf("the demo points at README section %q, which README.md does not have", s)
		}
	}
}
