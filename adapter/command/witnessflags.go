package command

import (
	"flag"
	"log/slog"

	"github.com/text2vec-am/text2vec-am/adapter/witness"
	"github.com/text2vec-am/text2vec-am/cli"
)

// witnessFlags are serve's flags of the witness of its memory directory.
type witnessFlags struct {
	url, apiKeyFile, name string
	reset                 bool
}

func (f *witnessFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "memory-witness", "", "`URL` of the Weaviate the server vectorizes for (e.g. http://weaviate:8080): "+
		"it records the --memory-dir's passage count, and a memory that holds fewer (a volume lost or re-created) "+
		"is refused, not used; needs --memory-dir and --weighting sif-collection, which counts the passages")
	fs.StringVar(&f.apiKeyFile, "memory-witness-api-key-file", "", "`file` holding the API key of --memory-witness")
	fs.StringVar(&f.name, "memory-witness-name", witness.DefaultName, "the memory's name in --memory-witness "+
		"(servers with memory directories of their own need names of their own)")
	fs.BoolVar(&f.reset, "memory-witness-reset", false, "accept the --memory-dir whatever --memory-witness recorded "+
		"(after memory clear or memory rebuild, or to keep a memory that lost passages); with --memory-weaviate, "+
		"re-create a memory collection that was deleted, empty")
}

// options returns the witness's options (nil without --memory-witness);
// dir is --memory-dir, remote whether the memory is kept in Weaviate,
// counted whether the server's weighting counts passages.
func (f *witnessFlags) options(dir string, remote, counted bool, log *slog.Logger) (*witness.Options, error) {
	if f.url == "" {
		if (f.reset && !remote) || f.apiKeyFile != "" || f.name != witness.DefaultName {
			return nil, cli.UsageError("--memory-witness-reset (but with --memory-weaviate), --memory-witness-name and " +
				"--memory-witness-api-key-file need --memory-witness")
		}
		return nil, nil
	}
	switch {
	case remote || dir == "":
		return nil, cli.UsageError("--memory-witness needs --memory-dir: it witnesses a memory directory " +
			"(a memory kept in Weaviate, --memory-weaviate, needs none)")
	case !counted:
		return nil, cli.UsageError("--memory-witness needs --weighting sif-collection: the count it witnesses is the " +
			"passages that weighting counts")
	}
	o := &witness.Options{URL: f.url, Name: f.name, Reset: f.reset, Logger: log}
	if f.apiKeyFile != "" {
		var err error
		if o.APIKey, err = readTokenFlag("--memory-witness-api-key-file", f.apiKeyFile); err != nil {
			return nil, err
		}
	}
	if err := o.Check(); err != nil {
		return nil, cli.UsageError("--memory-witness: %w", err)
	}
	return o, nil
}
