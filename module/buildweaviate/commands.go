package buildweaviate

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/text2vec-am/text2vec-am/cli"
)

// Commands returns the subcommands this package provides to the text2vec-am binary.
func Commands() []cli.Command {
	return []cli.Command{{
		Name:    "build-weaviate",
		Summary: "build weaviate-server " + WeaviateVersion + " with the in-process text2vec-am module",
		Run:     runBuild,
	}}
}

func runBuild(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("build-weaviate", env)
	var opts Options
	verbose := false
	fs.StringVar(&opts.Out, "out", "", "path of the weaviate-server binary to write (required)")
	fs.StringVar(&opts.Repo, "repo", "", "root of the text2vec-am source tree (default: the module root above the current directory)")
	fs.StringVar(&opts.WeaviateVersion, "weaviate-version", WeaviateVersion, "Weaviate version to build; only "+WeaviateVersion+" is supported")
	fs.StringVar(&opts.WorkDir, "work-dir", DefaultWorkDir(), "copy and build Weaviate's source here; kept, so that rebuilds reuse the Go build cache")
	fs.BoolVar(&verbose, "v", false, "show the go command's output")
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: text2vec-am build-weaviate --out PATH [flags]\n\n"+
			"Builds weaviate-server %s with text2vec-am registered: copies Weaviate's source out of\n"+
			"the Go module cache, adds one file and one line that register the module, and builds\n"+
			"with this source tree replaced in. Needs the go command.\n\n", WeaviateVersion)
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return cli.UsageError("unexpected arguments %q", fs.Args())
	}
	if opts.Out == "" {
		return cli.UsageError("--out is required: the path of the weaviate-server binary to write")
	}
	if opts.WeaviateVersion != WeaviateVersion {
		return cli.UsageError("--weaviate-version %s is not supported: only %s (text2vec-am implements that version's module interfaces)", opts.WeaviateVersion, WeaviateVersion)
	}
	if verbose {
		opts.Log = env.Stderr
	}
	opts.Logger = slog.New(slog.NewTextHandler(env.Stderr, nil))
	if err := Build(ctx, opts); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote %s\nrun it with ENABLE_MODULES=text2vec-am (see README: Running inside Weaviate)\n", opts.Out)
	return nil
}
