package cli

import (
	"bytes"
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestEnvName(t *testing.T) {
	for flagName, want := range map[string]string{"addr": "T_ADDR", "memory-dir": "T_MEMORY_DIR", "sif-a": "T_SIF_A"} {
		if got := EnvName("T_", flagName); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", flagName, got, want)
		}
	}
}

func TestParseFlagsEnv(t *testing.T) {
	env := map[string]string{"T_N": "5", "T_WAIT": "3s", "T_NAME": "from-env", "T_ON": "true", "T_BLANK": "  "}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var out bytes.Buffer
	fs := NewFlagSet("x", Env{Stderr: &out})
	n := fs.Int("n", 1, "a number")
	wait := fs.Duration("wait", time.Second, "a duration")
	name := fs.String("name", "default", "a name")
	on := fs.Bool("on", false, "a switch")
	blank := fs.String("blank", "kept", "a flag whose variable is blank")
	fromEnv, err := ParseFlagsEnv(fs, []string{"--name", "from-flag", "arg"}, "T_", lookup)
	if err != nil {
		t.Fatal(err)
	}
	// The command line beats the environment, which beats the default.
	if *n != 5 || *wait != 3*time.Second || *name != "from-flag" || !*on || *blank != "kept" {
		t.Errorf("n %d, wait %v, name %q, on %v, blank %q", *n, *wait, *name, *on, *blank)
	}
	if want := []string{"T_N=5", "T_ON=true", "T_WAIT=3s"}; !slices.Equal(fromEnv, want) {
		t.Errorf("fromEnv %q, want %q", fromEnv, want)
	}
	if fs.NArg() != 1 || fs.Arg(0) != "arg" {
		t.Errorf("args %q", fs.Args())
	}

	env["T_N"] = "many"
	fs = NewFlagSet("x", Env{Stderr: &out})
	fs.Int("n", 1, "a number")
	_, err = ParseFlagsEnv(fs, nil, "T_", lookup)
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), `environment variable T_N="many" (--n int): parse error`) {
		t.Errorf("bad variable: %v", err)
	}
	if _, err := ParseFlagsEnv(fs, []string{"-n", "2"}, "T_", lookup); err != nil {
		t.Errorf("a flag on the command line: the bad variable is not read, got %v", err)
	}

	out.Reset()
	fs = NewFlagSet("x", Env{Stderr: &out})
	fs.String("memory-dir", "", "a directory")
	if _, err := ParseFlagsEnv(fs, []string{"-h"}, "T_", lookup); !errors.Is(err, flag.ErrHelp) ||
		!strings.Contains(out.String(), "-memory-dir") || !strings.Contains(out.String(), "(--memory-dir: T_MEMORY_DIR)") {
		t.Errorf("help: %v\n%s", err, out.String())
	}
}
