package cli

import (
	"flag"
	"fmt"
	"strings"
)

// Suggest returns the candidate closest to word by edit distance
// (editDistance), or "" when none is close: at most 1 edit for
// words of up to 4 runes, 2 for longer ones, and never the whole word.
// Ties go to the first candidate.
func Suggest(word string, candidates []string) string {
	n := len([]rune(word))
	limit := 1
	if n > 4 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, c := range candidates {
		if diff := n - len([]rune(c)); diff > limit || -diff > limit {
			continue // too far apart; also bounds the work on a long word
		}
		if d := editDistance(word, c); d < bestD && d < n {
			best, bestD = c, d
		}
	}
	return best
}

// didYouMean is Suggest's answer as a message tail, ` (did you mean "x"?)`
// with the candidate prefixed by prefix ("--" for flags), or "".
func didYouMean(word, prefix string, candidates []string) string {
	if s := Suggest(word, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", prefix+s)
	}
	return ""
}

// editDistance is the edit distance between a and b in runes: insertions,
// deletions, substitutions and transpositions of adjacent runes ("fial",
// "fail") each count one (optimal string alignment).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// undefinedFlagPrefix starts the flag package's error for an unknown flag.
const undefinedFlagPrefix = "flag provided but not defined: -"

// flagSuggestion is the did-you-mean tail for a parse error of fs that
// names an unknown flag, or "".
func flagSuggestion(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), undefinedFlagPrefix)
	if !ok {
		return ""
	}
	name = strings.TrimLeft(name, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return didYouMean(name, "--", names)
}
