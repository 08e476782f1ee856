package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// Commands returns the subcommands this package provides to the text2vec-am binary.
func Commands() []cli.Command {
	return []cli.Command{{
		Name:    "demo",
		Summary: "search bundled Go docs with base vectors vs AM, and explain a jargon word (no network)",
		Run:     runDemo,
	}}
}

// maxTop bounds --top so the side-by-side table stays readable.
const maxTop = 20

func runDemo(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("demo", env)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: text2vec-am demo [flags]\n\n"+
			"Vectorizes the bundled Go package docs, teaches the context memory from them, and answers\n"+
			"searches with base vectors only and with Attentive Mimicking, side by side. No network needed.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	modelPath := fs.String("model", "", "AM model file (a serving bundle with base vectors); default: the embedded default model")
	top := fs.Int("top", 3, fmt.Sprintf("results shown per query and method (1..%d)", maxTop))
	query := fs.String("query", "", "an extra search of your own, shown side by side")
	explain := fs.String("explain", DefaultExplainWord, "the word whose AM inference is explained (contexts, attention ρ, gate α)")
	all := fs.Bool("all", false, "show every bundled query side by side, not only the first four")
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("unexpected argument %q (the demo takes only flags)", fs.Arg(0))
	}
	if *top < 1 || *top > maxTop {
		return cli.UsageError("--top %d: must be between 1 and %d", *top, maxTop)
	}
	if strings.TrimSpace(*explain) == "" {
		return cli.UsageError("--explain: empty word")
	}
	if *query != "" && strings.TrimSpace(*query) == "" {
		return cli.UsageError("--query: only spaces")
	}
	began := time.Now()
	m, name, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	if m.Base == nil {
		return fmt.Errorf("model %s has no base vectors: the demo needs a serving bundle (trained with the base vocabulary included)", name)
	}
	toks := m.Tokenizer.AppendTokens(nil, *explain)
	if len(toks) != 1 {
		return cli.UsageError("--explain %q: want one word, the model's tokenizer splits it into %d: %q", *explain, len(toks), toks)
	}
	data, err := BundledData()
	if err != nil {
		return err
	}
	show := 4
	if *all {
		show = -1
	}
	_, err = Run(ctx, env.Stdout, m, data, Options{
		ModelName:  name,
		LoadTime:   time.Since(began),
		Top:        *top,
		Show:       show,
		Query:      *query,
		Explain:    toks[0],
		NextNote:   nextNote(*modelPath),
		ServeModel: *modelPath,
		Color:      colorOK(env.Stdout),
	})
	return err
}

// loadModel loads path, or the embedded default model when path is "".
func loadModel(path string) (*model.Model, string, error) {
	m, err := defaultmodel.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("--model: %w", err)
	}
	if defaultmodel.IsDefault(path) {
		return m, "embedded default (" + defaultmodel.Name + ")", nil
	}
	return m, path, nil
}

// colorOK reports whether w is a terminal and NO_COLOR (no-color.org) is unset.
func colorOK(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// nextNote is the line printed under NextCommand when the demo ran on a
// model file: the compose file serves the embedded default model.
func nextNote(modelPath string) string {
	if modelPath == "" {
		return ""
	}
	return "the compose stack serves the embedded default model; to serve " + modelPath + ", mount it as docker-compose.yml's comment shows"
}
