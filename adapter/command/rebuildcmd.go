package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memoryapi"
	"github.com/text2vec-am/text2vec-am/adapter/rebuild"
	"github.com/text2vec-am/text2vec-am/adapter/refresh"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
)

// runRebuild is `memory rebuild`: it recomputes a collection's context
// memory from its objects in Weaviate (package rebuild).
func runRebuild(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("memory rebuild", env)
	var mf memoryFlags
	mf.register(fs)
	var vf vectorizerFlags
	vf.register(fs)
	var o rebuild.Options
	var src refresh.SourceFlags
	src.Register(fs, &o.Source, "rebuild from", "objects per page (≤ 1000)")
	fs.StringVar(&o.ModuleDir, "module-memory", "", "`directory` of the in-process module's memory (<Weaviate data path>/text2vec-am-memory): "+
		"rebuild the collection's own memory there (of --tenant when given); stop Weaviate first")
	fs.StringVar(&o.MemoryURL, "memory-url", "", "`URL` of a shared-memory holder (text2vec-am serve) to teach, with the token in $"+memoryapi.EnvToken)
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("memory rebuild takes no arguments, got %q", fs.Args())
	}
	if err := src.Check(fs); err != nil {
		return err
	}
	o.MemoryDir = mf.dir
	if n := countSet(o.MemoryDir, o.ModuleDir, o.MemoryURL); n != 1 {
		return cli.UsageError("memory rebuild: give exactly one of --memory-dir (serve's memory), --module-memory "+
			"(the in-process module's) or --memory-url (a holder); %d given", n)
	}
	for _, d := range []string{o.MemoryDir, o.ModuleDir} {
		if d != "" {
			if _, err := os.Stat(d); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("memory rebuild: %w", err)
			}
		}
	}
	o.MemoryToken = os.Getenv(memoryapi.EnvToken)
	var err error
	if o.Vectorizer, err = vf.options(); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, nil))
	if o.Memory, err = mf.options(log, false); err != nil {
		return err
	}
	if mf.sync == memory.DefaultOptions().Sync.String() {
		o.Memory.Sync = memory.SyncNever // Close fsyncs and snapshots at the end
	}
	if o.Model, _, err = vf.loadModel(); err != nil {
		return err
	}
	o.Progress = env.Stderr
	res, err := rebuild.Run(ctx, o)
	if err != nil {
		return fmt.Errorf("%w (%d objects read)", err, res.Read)
	}
	printRebuild(env, o, res)
	return nil
}

func countSet(ss ...string) int {
	n := 0
	for _, s := range ss {
		if s != "" {
			n++
		}
	}
	return n
}

// printRebuild says what the rebuild did and what to run next.
func printRebuild(env cli.Env, o rebuild.Options, res rebuild.Result) {
	w := env.Stdout
	fmt.Fprintf(w, "read %d objects of %s (%d without text), taught %d texts", res.Read, res.Class, res.Empty, res.Taught)
	if res.Refused > 0 {
		fmt.Fprintf(w, " (%d more refused: over --max-am-words, as an import refuses them)", res.Refused)
	}
	fmt.Fprintln(w)
	if len(res.Tenants) > 0 {
		fmt.Fprintf(w, "tenants read: %s\n", strings.Join(res.Tenants, ", "))
	}
	if len(res.Memories) > 0 {
		fmt.Fprintf(w, "%d passages newly counted\n", res.NewPassages)
	}
	for _, st := range res.Memories {
		fmt.Fprintf(w, "%s: %d passages counted; %d words with %d contexts remembered\n", st.Dir, st.Passages, st.Words, st.Contexts)
	}
	if res.HolderPassages > 0 {
		fmt.Fprintf(w, "%s: the holder counts %d passages for %s\n", o.MemoryURL, res.HolderPassages, res.Class)
	}
	if o.Vectorizer.Weighting != vectorizer.WeightSIFCollection {
		fmt.Fprintf(w, "(--weighting %s: passages were not counted)\n", o.Vectorizer.Weighting)
	}
	tenant := ""
	if len(res.Tenants) > 0 {
		tenant = " --tenant T (for each tenant T)"
	}
	fmt.Fprintf(w, "now start the vectorizer and run `text2vec-am refresh --class %s%s` so that the stored vectors follow the rebuilt memory\n",
		res.Class, tenant)
}
