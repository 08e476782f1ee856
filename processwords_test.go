package main

import (
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// processWordRE matches words about how the project's work was organized,
// which mean nothing to a user: numbered issues and work periods, removed
// designs described by what came before, and the hour of day a decision was
// taken.
var processWordRE = regexp.MustCompile(`(?i)\bsessions? [0-9]|\bsession-[0-9]|\bissues? [0-9]|\bissue-[0-9]|` +
	`\bbefore session|\bsessions?\b|\b[0-9]{1,2}:[0-9]{2} UTC\b`)

// hexRunRE matches a run of 7 to 40 hexadecimal digits, the shape of a
// commit hash. A run is reported only when it mixes digits and letters:
// plain numbers (1000000) and words made of a–f (defaced) are not hashes.
var hexRunRE = regexp.MustCompile(`(?i)\b[0-9a-f]{7,40}\b`)

// hexAllowedRE matches hexadecimal that is data, not a commit hash: the
// generation numbers in the names of memory files (log-00000000000000ff.amm),
// and checksums given whole (a sha256 has 64 digits, more than hexRunRE's 40).
var hexAllowedRE = regexp.MustCompile(`(?i)\b(?:log|snapshot)-[0-9a-f]{16}\b`)

func looksLikeHash(s string) bool {
	return strings.ContainsAny(s, "0123456789") && strings.ContainsAny(strings.ToLower(s), "abcdef")
}

// processWordProblems returns the process words and hash-like runs in text.
func processWordProblems(file string, line int, text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if m := processWordRE.FindString(l); m != "" {
			out = append(out, file+":"+strconv.Itoa(line)+": "+strings.TrimSpace(m)+": "+clip(l))
		}
		for _, h := range hexRunRE.FindAllString(hexAllowedRE.ReplaceAllString(l, ""), -1) {
			if looksLikeHash(h) {
				out = append(out, file+":"+strconv.Itoa(line)+": "+h+" looks like a commit hash: "+clip(l))
			}
		}
		line++
	}
	return out
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// goComments returns the comments of a Go source file with their first lines.
func goComments(src []byte) (texts []string, lines []int) {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return texts, lines
		}
		if tok == token.COMMENT {
			texts = append(texts, lit)
			lines = append(lines, fset.Position(pos).Line)
		}
	}
}

// TestNoProcessWords checks the tracked Markdown documents and the comments
// of the tracked Go files for words about how the work was organized
// (numbered issues and the like) and for commit hashes: the
// product describes itself as it is.
func TestNoProcessWords(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "*.md", "*.go").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout)", err)
	}
	var problems []string
	files := strings.Fields(string(out))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			continue // deleted in the work tree
		}
		if strings.HasSuffix(f, ".md") {
			problems = append(problems, processWordProblems(f, 1, string(src))...)
			continue
		}
		texts, lines := goComments(src)
		for i, c := range texts {
			problems = append(problems, processWordProblems(f, lines[i], c)...)
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(files) < 50 {
		t.Fatalf("checked only %d files; the listing is broken", len(files))
	}
}

// TestProcessWordCheckFindsThem feeds the check known process words, hashes
// and innocent text, so that TestNoProcessWords cannot pass by finding nothing.
func TestProcessWordCheckFindsThem(t *testing.T) {
	// The samples are put together at run time so that this file holds no
	// process words itself: a word the check looks for, then a number or a
	// made-up abbreviated commit hash.
	bad := []string{}
	for _, w := range []string{"session", "Session", "issue", "issue-"} {
		sep := " "
		if strings.HasSuffix(w, "-") {
			sep = ""
		}
		bad = append(bad, fmt.Sprintf("see %s%s%d", w, sep, 7))
	}
	bad = append(bad, "fixed in "+strings.Repeat("a1", 3)+"f", fmt.Sprintf("agreed %d:%d UTC", 16, 20))
	for _, b := range bad {
		if len(processWordProblems("x.md", 1, b)) == 0 {
			t.Errorf("%q passed the check", b)
		}
	}
	good := []string{"1000000 words", "a defaced page", "the issue with 0 contexts", "CRC-32C",
		"log-00000000000000ff.amm", "sha256 e41421e17cc256a57b7a371beea00017c63e2c93e94555287c2fb4ccc94d6885"}
	for _, g := range good {
		if p := processWordProblems("x.md", 1, g); len(p) != 0 {
			t.Errorf("%q was reported: %v", g, p)
		}
	}
}
