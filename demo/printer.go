package demo

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/model"
)

// Layout of the side-by-side tables, in terminal columns.
const (
	titleWidth   = 34
	contextWidth = 84
	maxContexts  = 10 // contexts listed in full before eliding the middle
)

// ANSI styles, used only when printer.color is set.
const (
	styleBold  = "1"
	styleDim   = "2"
	styleGreen = "32"
	styleRed   = "31"
	styleCyan  = "36"
)

// printer writes the demo's report; it keeps the first write error.
type printer struct {
	w     io.Writer
	color bool
	err   error
}

func newPrinter(w io.Writer, color bool) *printer { return &printer{w: w, color: color} }

func (p *printer) printf(format string, args ...any) {
	if p.err != nil {
		return
	}
	_, p.err = fmt.Fprintf(p.w, format, args...)
}

// style wraps s in an ANSI style when colour is on.
func (p *printer) style(code, s string) string {
	if !p.color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// section prints a section heading.
func (p *printer) section(title string) {
	p.printf("\n%s %s\n", p.style(styleCyan, "━━"), p.style(styleBold, title))
}

// fit pads or cuts s to exactly width runes (cut text ends in "…").
func fit(s string, width int) string {
	n := utf8.RuneCountInString(s)
	if n <= width {
		return s + strings.Repeat(" ", width-n)
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

// group formats n with thousands separators.
func group(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + group(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// plural is "1 context", "2 contexts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func (p *printer) header(m *model.Model, name string, load time.Duration, o vectorizer.Options, res *Result, ready time.Duration) {
	p.printf("%s · %s\n", p.style(styleBold, "text2vec-am demo"), "Attentive Mimicking for words the base vectors do not know")
	desc := fmt.Sprintf("%s, %d dimensions", m.Mode, m.Dim)
	if m.Base != nil {
		desc += ", " + group(int64(m.Base.Len())) + " base words"
	}
	if m.Vocab != nil {
		desc += ", " + group(int64(m.Vocab.Len())) + " n-grams"
	}
	if name == "" {
		name = "model"
	}
	if load > 0 {
		desc += " · loaded in " + seconds(load)
	}
	p.printf("  %-10s%s: %s\n", "model", name, desc)
	rules := fmt.Sprintf("corpus count ≥ %d: base vector", o.FrequentMin)
	if o.RareMin < o.FrequentMin {
		rules += fmt.Sprintf("; %d–%d: bundled AM+skip vector", o.RareMin, o.FrequentMin-1)
	}
	p.printf("  %-10s%s; unseen: AM (right column only)\n", "words", rules)
	p.printf("  %-10s%d %s\n", "documents", res.Documents, res.DataName)
	p.printf("  %-10staught %s contexts of %s words from them · ready in %s\n", "memory",
		group(int64(res.Memory.Contexts)), group(int64(res.Memory.Words)), seconds(ready))
}

// rankText describes where the first relevant document came.
func rankText(rank, total int) string {
	switch {
	case total == 0:
		return "no vector: every word is unknown"
	case rank == 0:
		return fmt.Sprintf("no relevant document among %d", total)
	}
	return fmt.Sprintf("first relevant: rank %d", rank)
}

// query prints one search side by side; qr is nil for an unscored query.
func (p *printer) query(label string, q Query, e encoded, s *searcher, base, am []hit, top int, qr *QueryResult) {
	p.section(fmt.Sprintf("%s  %q", label, q.Text))
	if len(q.Relevant) > 0 {
		p.printf("   relevant: %s\n", strings.Join(q.Relevant, ", "))
	}
	if len(e.amWords) > 0 {
		p.printf("   not in the base vocabulary, inferred by AM: %s\n", p.style(styleBold, strings.Join(e.amWords, ", ")))
	} else {
		p.printf("   every word is in the base vocabulary: both columns use the same words\n")
	}
	col := 2 + titleWidth + 7 // mark, title, score
	// Headings and rank lines start where the titles do, after the rank and mark.
	p.printf("\n%7s%s%5s%s\n", "", p.style(styleDim, fit("base vectors only (unknown words dropped)", col-2)), "", p.style(styleDim, "with AM"))
	cell := func(hits []hit, i int) string {
		if i >= len(hits) {
			if i == 0 {
				return p.style(styleDim, fit("  (no vector: every word was dropped)", col))
			}
			return strings.Repeat(" ", col)
		}
		d := s.docs[hits[i].doc]
		mark, title := "  ", fit(d.Title, titleWidth)
		if slices.Contains(q.Relevant, d.ID) {
			mark, title = p.style(styleGreen, "✓ "), p.style(styleGreen, title)
		}
		return fmt.Sprintf("%s%s %6.3f", mark, title, hits[i].score)
	}
	for i := range top {
		if i >= len(base) && i >= len(am) {
			break
		}
		p.printf("%4d %s   %s\n", i+1, cell(base, i), cell(am, i))
	}
	if qr != nil {
		b, a := rankText(qr.RankBase, len(base)), rankText(qr.RankAM, len(am))
		switch {
		case better(qr.RankAM, qr.RankBase):
			a = p.style(styleGreen, a)
		case better(qr.RankBase, qr.RankAM):
			a = p.style(styleRed, a)
		}
		p.printf("%7s%s%5s%s\n", "", fit(b, col-2), "", a)
	}
}

// better reports whether rank a beats rank b (0 = not found).
func better(a, b int) bool { return a > 0 && (b == 0 || a < b) }

func (p *printer) summary(res *Result, shown int) {
	title := fmt.Sprintf("All %d queries: rank of the first relevant document", len(res.Queries))
	if shown < len(res.Queries) {
		title += fmt.Sprintf(" (%d shown above; --all shows every one)", shown)
	}
	p.section(title)
	const qw = 52
	p.printf("   %s %6s %6s   %s\n", p.style(styleDim, fit("query", qw)), p.style(styleDim, "base"), p.style(styleDim, "AM"), p.style(styleDim, "unknown to base"))
	var up, down int
	for _, q := range res.Queries {
		rb, ra := rankCell(q.RankBase), rankCell(q.RankAM)
		switch {
		case better(q.RankAM, q.RankBase):
			up++
			ra = p.style(styleGreen, ra)
		case better(q.RankBase, q.RankAM):
			down++
			ra = p.style(styleRed, ra)
		}
		p.printf("   %s %s %s   %s\n", fit(q.Text, qw), rb, ra, strings.Join(q.AMWords, " "))
	}
	p.printf("   %s %6.3f %6.3f\n", p.style(styleBold, fit(fmt.Sprintf("MRR@%d", mrrCutoff), qw)), res.MRRBase, res.MRRAM)
	p.printf("   AM ranks the relevant document higher for %d queries, lower for %d, the same for %d.\n",
		up, down, len(res.Queries)-up-down)
}

// rankCell is a right-aligned rank ("–" when not found).
func rankCell(rank int) string {
	if rank == 0 {
		return fmt.Sprintf("%6s", "–")
	}
	return fmt.Sprintf("%6d", rank)
}

func (p *printer) noExplanation(word string) {
	p.section(fmt.Sprintf("How AM builds a vector for %q", word))
	p.printf("   %q yields no vector: it has no character n-gram the model knows and no context.\n", word)
}

// explain prints the AM inference of one word as the paper's Table 5.
func (p *printer) explain(we vectorizer.WordExplanation, near []neighbour) {
	p.section(fmt.Sprintf("How AM builds a vector for %q", we.Word))
	switch we.Source {
	case vectorizer.SourceBase:
		p.printf("   %q is frequent in the base corpus (count %s): its base vector is used, AM is not needed.\n", we.Word, group(we.Count))
		p.printf("   Try --explain with a word of the \"unknown to base\" column above.\n")
		return
	case vectorizer.SourceAMSkip:
		p.printf("   %q is rare in the base corpus (count %s): the model holds its AM+skip vector, inferred\n", we.Word, group(we.Count))
		p.printf("   at training time from its corpus contexts. Try a word of the \"unknown to base\" column above.\n")
		return
	case vectorizer.SourceAM:
	default:
		p.printf("   %q: no vector (source %s).\n", we.Word, we.Source)
		return
	}
	seen := "never seen in the base corpus"
	if we.Count > 0 {
		seen = fmt.Sprintf("seen %s times in the base corpus", group(we.Count))
	}
	if we.FormOnly || len(we.Contexts) == 0 {
		p.printf("   %s, and in no context: the vector comes from its form alone (character n-grams).\n", seen)
		p.neighbours(near)
		return
	}
	p.printf("   %s; AM reads it in %s from the documents.\n", seen, plural(len(we.Contexts), "context"))
	known := ""
	if we.FormCoverage != nil {
		known = fmt.Sprintf(", %.0f%% of them known", 100**we.FormCoverage)
	}
	p.printf("   v = α·A·v_context + (1−α)·v_form with gate %s: %.0f%% context, %.0f%% form (character n-grams%s).\n",
		p.style(styleBold, fmt.Sprintf("α = %.2f", we.Alpha)), 100*we.Alpha, 100*(1-we.Alpha), known)
	p.printf("   The contexts, weighted by attention ρ (high ρ: the context agrees with the others):\n\n")
	p.printf("   %s  %s\n", p.style(styleDim, "    ρ"), p.style(styleDim, "context"))
	ctxs := slices.Clone(we.Contexts)
	slices.SortStableFunc(ctxs, func(a, b vectorizer.ContextWeight) int { return cmp.Compare(b.Rho, a.Rho) })
	for i, c := range ctxs {
		if len(ctxs) > maxContexts && i == maxContexts-2 {
			p.printf("   %5s  … %d more\n", "", len(ctxs)-maxContexts)
		}
		if len(ctxs) > maxContexts && i >= maxContexts-2 && i < len(ctxs)-2 {
			continue
		}
		p.printf("   %5.3f  %s\n", c.Rho, p.snippet(c.Text, we.Word, contextWidth))
	}
	p.neighbours(near)
}

func (p *printer) neighbours(near []neighbour) {
	if len(near) == 0 {
		return
	}
	parts := make([]string, len(near))
	for i, n := range near {
		parts[i] = fmt.Sprintf("%s %.2f", n.word, n.cos)
	}
	p.printf("\n   nearest base words to its AM vector: %s\n", strings.Join(parts, ", "))
}

// snippet cuts text to width runes around the first occurrence of word
// (case-insensitive), marking the elisions with "…" and the word in bold.
func (p *printer) snippet(text, word string, width int) string {
	text = strings.Join(strings.Fields(text), " ")
	r := []rune(text)
	lower := []rune(strings.ToLower(text))
	at, wl := -1, utf8.RuneCountInString(word)
	if len(lower) == len(r) {
		at = runeIndex(lower, []rune(strings.ToLower(word)))
	}
	start, end := 0, len(r)
	if end > width {
		if at >= 0 {
			start = max(0, at-(width-wl)/2)
		}
		end = min(len(r), start+width)
		start = max(0, end-width)
	}
	pre, post := "", ""
	if start > 0 {
		pre = "…"
		start++
	}
	if end < len(r) {
		post = "…"
		end--
	}
	if at < start || at+wl > end {
		return pre + string(r[start:end]) + post
	}
	return pre + string(r[start:at]) + p.style(styleBold, string(r[at:at+wl])) + string(r[at+wl:end]) + post
}

// runeIndex is the index of the first occurrence of sub in s, or -1.
func runeIndex(s, sub []rune) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if slices.Equal(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// ServeCommand and CurlCommand are the first next step the demo prints:
// the inference server on loopback and one request to it, no Docker needed.
const (
	ServeCommand = "go run . serve"
	CurlCommand  = `curl -s localhost:8880/vectors -H 'Content-Type: application/json' -d '{"text":"nftables replaces iptables"}'`
)

// NextCommand is how to run Weaviate with the default model in containers,
// the second next step (docker-compose.yml).
const NextCommand = "docker compose up -d --build"

// ReadmeSections are the README sections the demo's last lines point at
// (demo_test checks that they exist).
var ReadmeSections = []string{"Serving with a stock Weaviate", "Docker Compose"}

func (p *printer) footer(note, modelPath string, load, elapsed time.Duration) {
	serve := ServeCommand
	if modelPath != "" {
		serve += " --model " + modelPath
	}
	p.section("Next: serve it to Weaviate")
	p.printf("   %s\n", p.style(styleBold, serve))
	p.printf("   %s\n", p.style(styleDim, "the text2vec-am server on 127.0.0.1:8880, no Docker needed; then, in another terminal:"))
	p.printf("   %s\n", p.style(styleBold, CurlCommand))
	p.printf("   %s\n", p.style(styleBold, NextCommand))
	p.printf("   %s\n", p.style(styleDim, "Weaviate 1.39.0 and the text2vec-am server in containers (docker-compose.yml)"))
	if note != "" {
		p.printf("   %s\n", p.style(styleDim, note))
	}
	p.printf("   %s\n", p.style(styleDim, "README: \""+strings.Join(ReadmeSections, "\", \"")+"\""))
	p.printf("\n%s\n", p.style(styleDim, "demo finished in "+seconds(load+elapsed)))
}
