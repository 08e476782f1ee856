package command

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
)

func mapLookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

// TestServeEnv checks that the environment sets serve's flags (the limits,
// the vectorizer's settings, the memory's), and that a flag beats it.
func TestServeEnv(t *testing.T) {
	env := map[string]string{
		"TEXT2VEC_AM_MAX_BATCH":   "7",
		"TEXT2VEC_AM_QUEUE_WAIT":  "3s",
		"TEXT2VEC_AM_SIF_A":       "0.5",
		"TEXT2VEC_AM_WEIGHTING":   "mean",
		"TEXT2VEC_AM_MEMORY_SYNC": "always",
		"TEXT2VEC_AM_EXPLAIN":     "off",
		"TEXT2VEC_AM_MEMORY_DIR":  "/var/lib/t2vam",
		"TEXT2VEC_AM_ADDR":        "127.0.0.1:9999",
		"TEXT2VEC_AM_MAX_WORDS":   "", // empty: the default
	}
	args := []string{"--max-batch", "9", "--weighting", "sif"}
	c, err := parseServe(cli.Env{Args: args, Stderr: &bytes.Buffer{}}, mapLookup(env))
	if err != nil {
		t.Fatal(err)
	}
	if c.lim.MaxBatch != 9 || c.vopts.Weighting != vectorizer.WeightSIF {
		t.Errorf("flags: max batch %d, weighting %v; want 9 and sif (a flag beats the environment)", c.lim.MaxBatch, c.vopts.Weighting)
	}
	if c.lim.QueueWait != 3*time.Second || c.vopts.SIFA != 0.5 || c.mopts.Sync != memory.SyncAlways || !c.lim.NoExplain ||
		c.memoryDir != "/var/lib/t2vam" || c.addr != "127.0.0.1:9999" {
		t.Errorf("environment not applied: queue wait %v, sif-a %v, sync %v, no explain %v, memory dir %q, addr %q",
			c.lim.QueueWait, c.vopts.SIFA, c.mopts.Sync, c.lim.NoExplain, c.memoryDir, c.addr)
	}
	if c.lim.MaxWords != server.DefaultLimits().MaxWords {
		t.Errorf("an empty variable changed --max-words to %d", c.lim.MaxWords)
	}
}

// TestServeEnvErrors checks that a bad value from the environment is refused
// with a usage error naming the variable and the value.
func TestServeEnvErrors(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        []string
	}{
		{"TEXT2VEC_AM_MAX_BATCH", "lots", []string{`environment variable TEXT2VEC_AM_MAX_BATCH="lots" (--max-batch int)`}},
		{"TEXT2VEC_AM_QUEUE_WAIT", "5", []string{`TEXT2VEC_AM_QUEUE_WAIT="5"`}},
		{"TEXT2VEC_AM_SIF_A", "big", []string{`TEXT2VEC_AM_SIF_A="big"`}},
		{"TEXT2VEC_AM_MIX_TEXT_CONTEXTS", "perhaps", []string{`TEXT2VEC_AM_MIX_TEXT_CONTEXTS="perhaps"`}},
		// A value the flag takes but the checks refuse: the message names
		// the flag and the variables that were used.
		{"TEXT2VEC_AM_MAX_CONCURRENT", "0", []string{"--max-concurrent", "set by the environment: TEXT2VEC_AM_MAX_CONCURRENT=0"}},
		{"TEXT2VEC_AM_SIF_A", "2", []string{"--sif-a", "TEXT2VEC_AM_SIF_A=2"}},
		{"TEXT2VEC_AM_MEMORY", "maybe", []string{"--memory", "TEXT2VEC_AM_MEMORY=maybe"}},
	} {
		_, err := parseServe(cli.Env{Stderr: &bytes.Buffer{}}, mapLookup(map[string]string{c.name: c.value}))
		if !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%s=%q: %v, want a usage error", c.name, c.value, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s=%q: %q lacks %q", c.name, c.value, err, w)
			}
		}
	}
}

// TestServeWeaviateLimitsEnv: the environment sets the RAM of the copy of the
// memory kept in Weaviate; a value out of range names the flag and the
// variable.
func TestServeWeaviateLimitsEnv(t *testing.T) {
	env := map[string]string{"TEXT2VEC_AM_MEMORY_WEAVIATE": "http://w:8080",
		"TEXT2VEC_AM_MEMORY_WEAVIATE_MAX_BYTES": "268435456"}
	c, err := parseServe(cli.Env{Stderr: &bytes.Buffer{}}, mapLookup(env))
	if err != nil || c.weaviate == nil || c.weaviate.MaxBytes != 256<<20 {
		t.Fatalf("limits from the environment: %+v, %v", c.weaviate, err)
	}
	env["TEXT2VEC_AM_MEMORY_WEAVIATE_MAX_BYTES"] = "1000"
	_, err = parseServe(cli.Env{Stderr: &bytes.Buffer{}}, mapLookup(env))
	if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), "--memory-weaviate-max-bytes") ||
		!strings.Contains(err.Error(), "TEXT2VEC_AM_MEMORY_WEAVIATE_MAX_BYTES=1000") {
		t.Errorf("RAM of 1000 bytes: %v", err)
	}
}

// TestServeEnvNames checks that every flag of serve has its variable, and that
// the vectorizer's settings table names the same variables as serve's flags.
func TestServeEnvNames(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var f serveFlags
	f.register(fs)
	seen := map[string]string{}
	fs.VisitAll(func(fl *flag.Flag) {
		name := cli.EnvName(EnvPrefix, fl.Name)
		if other, ok := seen[name]; ok {
			t.Errorf("--%s and --%s share the variable %s", fl.Name, other, name)
		}
		seen[name] = fl.Name
	})
	for _, s := range vectorizer.Settings() {
		if s.Flag == "" {
			continue
		}
		if fs.Lookup(s.Flag) == nil {
			t.Errorf("serve has no --%s", s.Flag)
		}
		if got := cli.EnvName(EnvPrefix, s.Flag); got != s.Env {
			t.Errorf("--%s: serve reads %s, the settings table names %s", s.Flag, got, s.Env)
		}
	}
}

// TestServeReadsTheEnvironment runs the serve command with the process's
// environment: a bad variable stops it, unless its flag is given.
func TestServeReadsTheEnvironment(t *testing.T) {
	t.Setenv("TEXT2VEC_AM_MAX_BATCH", "lots")
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := cli.Main(context.Background(), "text2vec-am", Commands(), append([]string{"serve"}, args...), &out, &errb)
		return code, errb.String()
	}
	if code, stderr := run(); code != 2 || !strings.Contains(stderr, `TEXT2VEC_AM_MAX_BATCH="lots"`) {
		t.Errorf("exit %d, stderr %q; want 2 naming TEXT2VEC_AM_MAX_BATCH", code, stderr)
	}
	if code, stderr := run("--max-batch", "5", "--max-concurrent", "0"); code != 2 ||
		!strings.Contains(stderr, "--max-concurrent 0") || strings.Contains(stderr, "TEXT2VEC_AM_MAX_BATCH") {
		t.Errorf("exit %d, stderr %q; want 2 about --max-concurrent only", code, stderr)
	}
}

// TestServeLimitsOutOfRange: a --max-body-bytes whose 4 × (a refused body's
// drain) or + 1 (the read limit) overflows, and negative /explain limits,
// are refused at startup naming the flag (and the variable that gave them);
// an /explain limit of 0 means its default, as its usage says.
func TestServeLimitsOutOfRange(t *testing.T) {
	huge := "9223372036854775807"
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--max-body-bytes", huge, "--max-body-buffer", huge}, nil, "--max-body-bytes " + huge + ": want ≤ 2305843009213693951"},
		{nil, map[string]string{"TEXT2VEC_AM_MAX_BODY_BYTES": "2305843009213693952", "TEXT2VEC_AM_MAX_BODY_BUFFER": huge},
			"TEXT2VEC_AM_MAX_BODY_BYTES=2305843009213693952"},
		{[]string{"--explain-max-words", "-1"}, nil, "--explain-max-words -1: want ≥ 0 (0 means 1000)"},
		{[]string{"--explain-max-bytes", "-1"}, nil, "--explain-max-bytes -1: want ≥ 0 (0 means 1048576)"},
	} {
		_, err := parseServe(cli.Env{Args: c.args, Stderr: &bytes.Buffer{}}, mapLookup(c.env))
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %v: err = %v, want a usage error saying %q", c.args, c.env, err, c.want)
		}
	}
	top := "2305843009213693951"
	args := []string{"--max-body-bytes", top, "--max-body-buffer", huge, "--explain-max-words", "0", "--explain-max-bytes", "0"}
	if _, err := parseServe(cli.Env{Args: args, Stderr: &bytes.Buffer{}}, mapLookup(nil)); err != nil {
		t.Errorf("%q: %v", args, err)
	}
}

// TestServeMemoryOffDirEnv: serve --memory off on a directory that does not
// exist fails before the model loads, naming the path, and the environment
// variable when that gave it.
func TestServeMemoryOffDirEnv(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-memory")
	env := map[string]string{"TEXT2VEC_AM_MEMORY": "off", "TEXT2VEC_AM_MEMORY_DIR": missing}
	_, err := parseServe(cli.Env{Stderr: &bytes.Buffer{}}, mapLookup(env))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "--memory-dir "+missing+": ") ||
		!strings.Contains(err.Error(), "TEXT2VEC_AM_MEMORY_DIR="+missing) {
		t.Errorf("a missing directory from the environment: %v; want it named with its variable", err)
	}
	_, err = parseServe(cli.Env{Args: []string{"--memory", "off", "--memory-dir", missing}, Stderr: &bytes.Buffer{}},
		mapLookup(nil))
	if !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "environment") {
		t.Errorf("a missing directory from the flags: %v; want it named, no variable", err)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = parseServe(cli.Env{Args: []string{"--memory", "off", "--memory-dir", file}, Stderr: &bytes.Buffer{}},
		mapLookup(nil))
	if err == nil || !strings.Contains(err.Error(), "--memory-dir "+file+": ") || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file as the directory: %v; want it named as not a directory", err)
	}
	env["TEXT2VEC_AM_MEMORY_DIR"] = t.TempDir()
	if _, err := parseServe(cli.Env{Stderr: &bytes.Buffer{}}, mapLookup(env)); err != nil {
		t.Errorf("an existing directory from the environment: %v", err)
	}
}
