package refresh

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/text2vec-am/text2vec-am/cli"
)

// Commands returns the refresh subcommand.
func Commands() []cli.Command {
	return []cli.Command{{
		Name:    "refresh",
		Summary: "re-vectorize a Weaviate collection from the current context memory and write the vectors back",
		Run:     runRefresh,
	}}
}

func runRefresh(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("refresh", env)
	var o Options
	var src SourceFlags
	src.Register(fs, &o, "refresh", "objects per page, vectorizer call and write (≤ 1000)")
	fs.StringVar(&o.Vectorizer, "vectorizer", "", "`URL` of the text2vec-am server (its /vectors/batch); required for the stock modules "+
		"(text2vec-transformers, -model2vec, and -cohere or -openai with a baseURL), default for text2vec-am: Weaviate's /v1/modules/text2vec-am")
	fs.BoolVar(&o.All, "all", false, "write every object's vector, not only those the current memory changes")
	fs.Float64Var(&o.Tolerance, "tolerance", DefaultTolerance, "a vector is current when its cosine with the new one is ≥ 1 − tolerance (0 < tolerance < 1)")
	fs.StringVar(&o.State, "state", "", "state `file`: records the cursor after every page; a run with the same file resumes after it")
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("unexpected arguments %q", fs.Args())
	}
	if err := src.Check(fs); err != nil {
		return err
	}
	if !(o.Tolerance > 0 && o.Tolerance < 1) {
		return cli.UsageError("--tolerance %v: want 0 < tolerance < 1", o.Tolerance)
	}
	o.Progress = env.Stderr
	st, err := Run(ctx, o)
	if err != nil {
		if o.State != "" {
			return fmt.Errorf("%w (%d objects read; the same command resumes from %s)", err, st.Read, o.State)
		}
		return err
	}
	return nil
}

// SourceFlags are the flags that name the collection refresh (and memory
// rebuild) reads and how: --weaviate, --class, --vector, --batch,
// --lowercase, --tenant and --api-key (default $WEAVIATE_API_KEY).
type SourceFlags struct {
	o       *Options
	targets cli.Paths
}

// Register registers the flags on fs, filling o; verb names what the
// command does to the named vectors, batch describes --batch.
func (f *SourceFlags) Register(fs *flag.FlagSet, o *Options, verb, batch string) {
	f.o = o
	fs.StringVar(&o.Weaviate, "weaviate", "http://127.0.0.1:8080", "Weaviate's REST `URL`")
	fs.StringVar(&o.Class, "class", "", "the collection (required)")
	fs.Var(&f.targets, "vector", "named vector to "+verb+" (repeatable); default: every one made by "+
		"text2vec-transformers, -model2vec, -cohere or -openai with a baseURL, or text2vec-am")
	fs.IntVar(&o.Batch, "batch", 100, batch)
	fs.BoolVar(&o.LowerCase, "lowercase", false, "lower-case the text, as Weaviate does with LOWERCASE_VECTORIZATION_INPUT=true")
	fs.StringVar(&o.Tenant, "tenant", "", "tenant of a multi-tenant collection")
	fs.StringVar(&o.APIKey, "api-key", "", "Weaviate's API `key`, sent as a bearer token on every call to Weaviate; "+
		"default: the environment variable "+APIKeyEnv+" (which keeps the key out of the process list)")
}

// Check checks the parsed flags and takes the API key from APIKeyEnv
// unless --api-key was given.
func (f *SourceFlags) Check(fs *flag.FlagSet) error {
	o := f.o
	if o.Class == "" {
		return cli.UsageError("--class is required")
	}
	if o.Batch < 1 || o.Batch > 1000 {
		return cli.UsageError("--batch %d: want 1 to 1000", o.Batch)
	}
	keyFlag := false
	fs.Visit(func(f *flag.Flag) { keyFlag = keyFlag || f.Name == "api-key" })
	if !keyFlag {
		o.APIKey = os.Getenv(APIKeyEnv)
	}
	o.Targets = f.targets
	return nil
}
