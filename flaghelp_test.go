package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
)

// ownDefaultRE matches a flag's usage that states a default itself ("0: the
// default 0.01", "default: the --out directory") and then gets the
// "(default X)" flag.PrintDefaults appends.
var ownDefaultRE = regexp.MustCompile(`(?i)(the default|default:).*\(default [^)]*\)$`)

// TestFlagHelpStatesDefaultOnce: no flag's help says its default twice.
func TestFlagHelpStatesDefaultOnce(t *testing.T) {
	var walk func(path []string, cmds []cli.Command)
	walk = func(path []string, cmds []cli.Command) {
		for _, c := range cmds {
			p := append(append([]string(nil), path...), c.Name)
			if len(c.Subcommands) > 0 {
				walk(p, c.Subcommands)
				continue
			}
			for _, line := range strings.Split(helpOutput(append(p, "-h")...), "\n") {
				if ownDefaultRE.MatchString(strings.TrimSpace(line)) {
					t.Errorf("text2vec-am %s -h: a flag states its default twice: %s", strings.Join(p, " "), strings.TrimSpace(line))
				}
			}
		}
	}
	walk(nil, commands())
}
