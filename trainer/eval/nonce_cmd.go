package eval

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/report"
)

// noncePublished are the MRRs Herbelot & Baroni (2017) and the papers after
// them report on the test split with Wikipedia background vectors.
const noncePublished = "Published (Wikipedia, test split): additive 0.037, nonce2vec 0.049, A La Carte 0.071, FCM 0.175."

func runNonce(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("eval nonce", env)
	var base baseFlags
	base.register(fs)
	am := fs.String("am", "", "AM weights `FILE`, bundle or \"default\": the AM-ctx row (its context part) and, for full am weights, AM with the made-up form")
	fcm := fs.String("fcm", "", "FCM weights `FILE` or bundle: the FCM-ctx row and, for full fcm weights, FCM with the made-up form")
	var alaCarte alaCarteFlag
	alaCarte.register(fs, "the defined words are not fitted on")
	nStop := fs.Int("stopwords", 50, "the additive − sw row leaves out this many most frequent words (by the base counts)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), nonceUsage)
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cli.UsageError("want one DEFINITIONS file, got %d arguments", fs.NArg())
	}
	if *nStop < 0 {
		return cli.UsageError("--stopwords must be ≥ 0, got %d", *nStop)
	}
	defs, err := dataset.LoadNonceDefinitions(fs.Arg(0))
	if err != nil {
		return err
	}
	e, stop, err := base.loadWithStopWords(*nStop)
	if err != nil {
		return err
	}
	rows := []nonceRow{{"additive", Additive(e, nil)}, {"additive − sw", Additive(e, stop)}}
	for _, r := range []struct {
		flag, path string
		mode       model.Mode
	}{{"--fcm", *fcm, model.ModeFCMContext}, {"--am", *am, model.ModeContext}} {
		if r.path == "" {
			continue
		}
		m, trained, err := contextPart(r.flag, r.path, e, r.mode)
		if err != nil {
			return err
		}
		rows = append(rows, nonceRow{fmt.Sprintf("%s (trained as %s)", chimeraRowName(r.mode), trained), ModelNonce(m)})
		if trained == model.ModeAM || trained == model.ModeFCM {
			full, err := loadModel(r.path, e, false)
			if err != nil {
				return err
			}
			rows = append(rows, nonceRow{fmt.Sprintf("%s with the made-up form", full.Mode), ModelNonce(full)})
		}
	}
	gold := make(map[string]bool, len(defs))
	for _, d := range defs {
		gold[d.Word] = true
	}
	f, fitted, err := alaCarte.nonce(ctx, e, AlaCarteHoldout{Words: gold})
	if err != nil {
		return err
	}
	if f != nil {
		rows = append(rows, nonceRow{"A La Carte", f})
	}
	return writeNonces(ctx, env, e, defs, rows, fitted)
}

const nonceUsage = "Usage: text2vec-am eval nonce --embeddings FILE|BUNDLE|default [--counts FILE] [--am FILE] " +
	"[--fcm FILE] [--alacarte-corpus PATH] DEFINITIONS\n\n" +
	"The definitional nonce task (Herbelot & Baroni 2017): DEFINITIONS holds \"word TAB definition\" lines\n" +
	"(the word written ___). Each word's vector is inferred from its definition under a made-up form\n" +
	"and the gold base vector of the word ranked among the whole base vocabulary by cosine: MRR and\n" +
	"median rank. A word without a base vector, or a definition that gives no vector, counts 0."

// nonceRow is one model of the nonce table.
type nonceRow struct {
	name  string
	nonce NonceFunc
}

// writeNonces scores each row on defs and writes the table.
// notes, when not empty, follows the table's footer.
func writeNonces(ctx context.Context, env cli.Env, e *model.Embeddings, defs []dataset.NonceDefinition, rows []nonceRow, notes string) error {
	ix := NewVocabIndex(e)
	tab := report.Table{Header: []string{"model", "MRR (all)", "MRR (words with a gold vector)", "median rank", "no vector"}}
	tok := model.DefaultTokenizer()
	var missingGold int
	for _, r := range rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		res := Nonces(tok, defs, r.nonce, ix)
		missingGold = res.MissingGold
		slog.Info("nonce", "model", r.name, "mrr", res.MRR, "median_rank", res.MedianRank, "no_vector", res.NoVector)
		tab.AddRow(r.name, report.Num(res.MRR, 4), report.Num(res.MRRGold, 4), fmt.Sprintf("%.0f", res.MedianRank), fmt.Sprint(res.NoVector))
	}
	if err := tab.WriteMarkdown(env.Stdout); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\n%d definitions; %d words have no base vector (reciprocal rank 0); ranked among %d words.\n%s\n",
		len(defs), missingGold, e.Len(), noncePublished)
	if notes != "" {
		fmt.Fprintln(env.Stdout, notes)
	}
	return nil
}
