package nn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/internal/lines"
	"github.com/text2vec-am/text2vec-am/model"
)

// MaxQueryBytes bounds one query (an argument or a line of stdin).
const MaxQueryBytes = 1 << 20

// Commands returns the nn subcommand.
func Commands() []cli.Command {
	return []cli.Command{{
		Name:    "nn",
		Summary: "print the base words nearest a word or a text by cosine (as fastText's nn)",
		Run:     runNN,
	}}
}

func runNN(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("nn", env)
	ref := fs.String("model", defaultmodel.Ref, "serving bundle `file`, or \"default\" for the embedded default model")
	k := fs.Int("k", 10, fmt.Sprintf("neighbours per query, 1 to %d", MaxK))
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am nn [--model FILE|default] [-k N] [word-or-text …]\n\n"+
			"Prints the k base words nearest each argument (a word, or a quoted text), or each line of\n"+
			"stdin when there is no argument, by cosine with the vector serve gives it as a query (no\n"+
			"context memory). One line per neighbour: query<TAB>word<TAB>cosine; the query's own words\n"+
			"are left out.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	queries := fs.Args()
	if *k < 1 || *k > MaxK {
		return cli.UsageError("-k %d: want 1 to %d", *k, MaxK)
	}
	for i, a := range queries {
		if len(a) > MaxQueryBytes {
			return cli.UsageError("argument %d: %d bytes, more than %d", i+1, len(a), MaxQueryBytes)
		}
	}
	s, err := newSearcher(*ref)
	if err != nil {
		return err
	}
	if len(queries) > 0 {
		for _, q := range queries {
			if err := s.print(ctx, env.Stdout, q, *k); err != nil {
				return err
			}
		}
		return nil
	}
	return lines.ForEach(env.Input(), "stdin", MaxQueryBytes, "a query", func(lineNo int, line string) error {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		if err := s.print(ctx, env.Stdout, line, *k); err != nil {
			return fmt.Errorf("stdin line %d: %w", lineNo, err)
		}
		return nil
	})
}

// searcher vectorizes queries as serve does and searches the base words.
type searcher struct {
	v   *vectorizer.Vectorizer
	ix  *Index
	tok model.Tokenizer
}

func newSearcher(ref string) (*searcher, error) {
	m, err := defaultmodel.Open(ref)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if m.Base == nil {
		return nil, fmt.Errorf("model %s holds AM weights without base embeddings: give a serving bundle", ref)
	}
	// The base words keep the common component a text vector loses: nn ranks
	// them against the weighted sum itself.
	opts := vectorizer.DefaultOptions()
	opts.CommonComponents = 0
	v, err := vectorizer.New(m, nil, opts)
	if err != nil {
		return nil, err
	}
	ix, err := NewIndex(m.Base)
	if err != nil {
		return nil, err
	}
	return &searcher{v: v, ix: ix, tok: m.Tokenizer}, nil
}

// Search returns the k base words nearest query, leaving out its own words.
func (s *searcher) search(ctx context.Context, query string, k int) ([]Neighbour, error) {
	q, err := s.v.VectorizeContext(ctx, query, vectorizer.TaskQuery, s.v.Options())
	if err != nil {
		if errors.Is(err, vectorizer.ErrNoWords) {
			return nil, fmt.Errorf("%q: %w", query, err)
		}
		return nil, fmt.Errorf("vectorize %.80q: %w", query, err)
	}
	skip := map[string]bool{}
	for _, w := range s.tok.AppendTokens(nil, query) {
		skip[w] = true
	}
	return s.ix.Nearest(q, k, skip)
}

// print writes query's neighbours, one "query<TAB>word<TAB>cosine" line each.
func (s *searcher) print(ctx context.Context, w io.Writer, query string, k int) error {
	nbs, err := s.search(ctx, query, k)
	if err != nil {
		return err
	}
	label := strings.Join(strings.Fields(query), " ")
	for _, n := range nbs {
		if _, err := fmt.Fprintf(w, "%s\t%s\t%.4f\n", label, n.Word, n.Cosine); err != nil {
			return err
		}
	}
	return nil
}
