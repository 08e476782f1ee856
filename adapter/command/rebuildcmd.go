package command

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/text2vec-am/text2vec-am/adapter/rebuild"
	"github.com/text2vec-am/text2vec-am/adapter/refresh"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
	"github.com/text2vec-am/text2vec-am/cli"
)

// runRebuild is `memory rebuild`: it recomputes a collection's context
// memory from its objects in Weaviate (package rebuild).
func runRebuild(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("memory rebuild", env)
	var mf memoryFlags
	mf.register(fs, memoryRebuild)
	var vf vectorizerFlags
	vf.register(fs)
	var o rebuild.Options
	var src refresh.SourceFlags
	src.Register(fs, &o.Source, "rebuild from", "objects per page (≤ 1000)")
	fs.StringVar(&o.ModuleDir, "module-memory", "", "`directory` of the in-process module's memory (<Weaviate data path>/text2vec-am-memory): "+
		"rebuild the collection's own memory there (of --tenant when given); stop Weaviate first")
	var wf weaviateFlags
	wf.registerTarget(fs, "`URL` of the Weaviate that keeps the memory to rebuild (serve --memory-weaviate; "+
		"with --module-scopes the in-process module's, TEXT2VEC_AM_MEMORY_WEAVIATE)")
	wf.registerReplicas(fs)
	fs.BoolVar(&o.ModuleScopes, "module-scopes", false, "with --memory-weaviate: rebuild the in-process module's memory "+
		"of the collection (of each tenant read), whose passages count in the shared scope too; default: serve's one shared scope")
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("unexpected arguments %q (all inputs are flags)", fs.Args())
	}
	if err := src.Check(fs); err != nil {
		return err
	}
	o.MemoryDir = mf.dir
	if n := countSet(o.MemoryDir, o.ModuleDir, wf.url); n != 1 {
		return cli.UsageError("give exactly one of --memory-dir (serve's memory), --module-memory "+
			"(the in-process module's) or --memory-weaviate (the memory kept in Weaviate); %d given", n)
	}
	if o.ModuleScopes && wf.url == "" {
		return cli.UsageError("--module-scopes names scopes of the memory kept in Weaviate: give --memory-weaviate")
	}
	for _, d := range []string{o.MemoryDir, o.ModuleDir} {
		if d != "" {
			if _, err := os.Stat(d); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("memory directory: %w", err)
			}
		}
	}
	var err error
	if o.Vectorizer, err = vf.options(); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, nil))
	if o.Memory, err = mf.options(log, false); err != nil {
		return err
	}
	if wf.url != "" {
		wo, err := wf.accessOptions(log)
		if err != nil {
			return err
		}
		if err := wf.checkReplicas(); err != nil {
			return err
		}
		wo.Replicas = wf.replicas
		o.Weaviate = &wo
	}
	if o.Model, o.ModelName, err = vf.loadModel(); err != nil {
		return err
	}
	o.Progress = env.Stderr
	res, err := rebuild.Run(ctx, o)
	if err != nil {
		return fmt.Errorf("%w (%d objects read)", err, res.Read)
	}
	keyGiven := false
	fs.Visit(func(f *flag.Flag) { keyGiven = keyGiven || f.Name == "api-key" })
	printRebuild(env, o, res, keyGiven)
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

// printRebuild says what the rebuild did and what to run next; keyGiven:
// the rebuild was given --api-key, which the command printed leaves out.
func printRebuild(env cli.Env, o rebuild.Options, res rebuild.Result, keyGiven bool) {
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
	if o.Weaviate != nil {
		fmt.Fprintf(w, "%s: %d objects written\n", weaviateapi.Redact(o.Weaviate.URL), res.Written)
	}
	for _, name := range slices.Sorted(maps.Keys(res.Scopes)) {
		st := res.Scopes[name]
		fmt.Fprintf(w, "scope %q (tenant %s of %s): %d objects (%d passages, %d contexts), version %s\n", name, st.Tenant,
			o.Weaviate.Class, st.Objects, st.Passages, st.Contexts, st.Version)
	}
	if o.Vectorizer.Weighting != vectorizer.WeightSIFCollection {
		fmt.Fprintf(w, "(--weighting %s: passages were not counted)\n", o.Vectorizer.Weighting)
	}
	cmd, note := refreshCommand(o, res)
	if keyGiven {
		note += fmt.Sprintf(" (refresh needs Weaviate's API key too: set %s to it, or add --api-key)", refresh.APIKeyEnv)
	}
	fmt.Fprintf(w, "now start the vectorizer and run `%s` so that the stored vectors follow the rebuilt memory%s\n", cmd, note)
}

// refreshCommand returns the refresh command that follows a rebuild, and a
// note on what to put in it: the URL of the text2vec-am server the stock
// modules call, which refresh needs for their vectors and takes from the
// collection's settings when they name one. It reads the collection as the
// rebuild did (--weaviate with its password redacted, --lowercase) and
// refreshes the vectors the rebuilt memory makes: each named with --vector
// when the collection has others, or when the rebuild was given --vector.
func refreshCommand(o rebuild.Options, res rebuild.Result) (cmd, note string) {
	cmd = "text2vec-am refresh --class " + res.Class
	if o.Source.Weaviate != "" {
		cmd += " --weaviate " + weaviateapi.Redact(o.Source.Weaviate)
		if weaviateapi.Redact(o.Source.Weaviate) != o.Source.Weaviate {
			note += " (xxxxx: the password in --weaviate)"
		}
	}
	if len(res.Others) > 0 || len(o.Source.Targets) > 0 {
		for _, name := range res.Follow {
			cmd += " --vector " + name
		}
	}
	if o.Source.LowerCase {
		cmd += " --lowercase"
	}
	if slices.ContainsFunc(res.Modules, func(m string) bool { return m != refresh.ModuleAM }) {
		mods := slices.Compact(slices.Sorted(slices.Values(res.Modules)))
		switch {
		case res.VectorizerURL != "":
			cmd += " --vectorizer " + weaviateapi.Redact(res.VectorizerURL)
			note += fmt.Sprintf(" (--vectorizer: the text2vec-am server that class %s's settings name, as Weaviate reaches it; "+
				"give its address as reached from where refresh runs)", res.Class)
			if weaviateapi.Redact(res.VectorizerURL) != res.VectorizerURL {
				note += " (xxxxx: the password in --vectorizer)"
			}
		default:
			cmd += " --vectorizer URL"
			note += fmt.Sprintf(" (URL: the text2vec-am server that %s calls for class %s, e.g. http://127.0.0.1:8880)",
				strings.Join(mods, ", "), res.Class)
		}
	}
	if len(res.Tenants) > 0 {
		cmd += " --tenant T"
		note += " (for each tenant T)"
	}
	return cmd, note
}
