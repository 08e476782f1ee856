package trainer

import (
	"bufio"
	"context"
	"fmt"
	"os"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
)

func exportCommand() cli.Command {
	return cli.Command{Name: "export", Summary: "write a serving bundle's base vectors (and counts) as word2vec text or binary", Run: runExport}
}

func runExport(_ context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("export", env)
	ref := fs.String("model", defaultmodel.Ref, "serving bundle `FILE`, or \"default\" for the embedded default model")
	out := fs.String("out", "", "output embeddings `FILE` (word2vec text; .gz compresses; - for stdout; required)")
	binary := fs.Bool("binary", false, "write word2vec binary instead of text")
	countsOut := fs.String("counts-out", "", "also write the bundle's word counts (\"word count\" lines) to `FILE`")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am export [--model FILE|default] --out FILE [--binary] [--counts-out FILE]\n\n"+
			"Writes the base vectors of a serving bundle in word2vec format, so that any tool can read\n"+
			"them. In a bundle the rows of words seen 1 to 31 times hold their precomputed AM+skip\n"+
			"vectors (what serving uses), the other rows the skipgram vectors.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cli.UsageError("unexpected arguments %q (all inputs are flags)", fs.Args())
	case *out == "":
		return cli.UsageError("--out is required")
	case *out == "-" && *binary:
		return cli.UsageError("--binary writes a file, not stdout")
	}
	if err := checkExportFiles(*ref, *out, *countsOut); err != nil {
		return err
	}
	m, err := defaultmodel.Open(*ref)
	if err != nil {
		return err
	}
	if m.Base == nil {
		return fmt.Errorf("%s holds AM weights without base embeddings (not a serving bundle)", *ref)
	}
	if *countsOut != "" {
		if m.Base.Counts == nil {
			return fmt.Errorf("%s has no word counts", *ref)
		}
		f, err := os.Create(*countsOut)
		if err != nil {
			return fmt.Errorf("--counts-out: %w", err)
		}
		w := bufio.NewWriter(f)
		err = model.WriteCounts(w, m.Base.Words, m.Base.Counts)
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("--counts-out %s: %w", *countsOut, err)
		}
	}
	if *out == "-" {
		return model.WriteEmbeddingsText(env.Stdout, m.Base)
	}
	if err := model.SaveEmbeddings(*out, m.Base, *binary); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(env.Stderr, "wrote %d vectors of dimension %d to %s\n", m.Base.Len(), m.Base.Dim, *out)
	return nil
}

// checkExportFiles fails before any work when --out or --counts-out cannot
// be written, is the same file as the other, or is the --model bundle ref,
// which writing it would destroy (outpath.Check). --out - is stdout.
func checkExportFiles(ref, out, countsOut string) error {
	if out == "-" {
		out = ""
	}
	var inputs []outpath.File
	if !defaultmodel.IsDefault(ref) {
		inputs = append(inputs, outpath.File{Flag: "--model", Path: ref})
	}
	outs := []outpath.File{{Flag: "--out", Path: out}, {Flag: "--counts-out", Path: countsOut}}
	if err := outpath.Check(outs, inputs); err != nil {
		return cli.UsageError("%w", err)
	}
	return nil
}
