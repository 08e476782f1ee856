package version

import (
	"context"
	"fmt"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/simd"
)

// Command returns "version", which prints the version, the Go version, the
// platform and the instruction sets the SIMD kernels run from. cli.Main runs
// it for "text2vec-am --version" too.
func Command() cli.Command {
	return cli.Command{Name: "version", Summary: "print the version, the Go version, the platform and the SIMD kernels' instruction sets",
		Run: runVersion}
}

func runVersion(_ context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("version", env)
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("unexpected arguments %q", fs.Args())
	}
	i := Get()
	_, err := fmt.Fprintf(env.Stdout, "text2vec-am %s\ngo:   %s %s/%s\nsimd: %s\n", i.Version, i.GoVersion, i.OS, i.Arch, simd.SetsString())
	return err
}
