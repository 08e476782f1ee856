package command

import (
	"fmt"
	"strings"

	"github.com/text2vec-am/text2vec-am/cli"
)

// EnvPrefix begins the environment variable of every flag of serve:
// cli.EnvName(EnvPrefix, "memory-dir") is TEXT2VEC_AM_MEMORY_DIR. The
// vectorizer's settings use the same names (vectorizer.Setting.Env), and so
// does the Weaviate module for the settings it shares with serve.
const EnvPrefix = "TEXT2VEC_AM_"

// parseServe reads serve's flags from env.Args and, for each flag not given
// there, its environment variable as lookup finds it, and checks them. An
// error about a value lists the variables that were used, since the value
// may have come from one of them.
func parseServe(env cli.Env, lookup func(string) (string, bool)) (serveConfig, error) {
	fs := cli.NewFlagSet("serve", env)
	var f serveFlags
	f.register(fs)
	fromEnv, err := cli.ParseFlagsEnv(fs, env.Args, EnvPrefix, lookup)
	if err != nil {
		return serveConfig{}, err
	}
	if fs.NArg() > 0 {
		return serveConfig{}, cli.UsageError("unexpected arguments %q", fs.Args())
	}
	c, err := f.config(env.Stderr)
	if err != nil && len(fromEnv) > 0 {
		return c, fmt.Errorf("%w (set by the environment: %s)", err, strings.Join(fromEnv, " "))
	}
	return c, err
}
