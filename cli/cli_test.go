package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
)

func testCommands(ran *[]string) []Command {
	return []Command{
		{Name: "ok", Summary: "succeeds", Run: func(_ context.Context, env Env) error {
			*ran = append(*ran, "ok:"+strings.Join(env.Args, ","))
			return nil
		}},
		{Name: "flags", Summary: "parses a flag", Run: func(_ context.Context, env Env) error {
			fs := NewFlagSet("flags", env)
			n := fs.Int("n", 1, "a number")
			if err := ParseFlags(fs, env.Args); err != nil {
				return err
			}
			if *n < 0 {
				return UsageError("--n: %d is negative", *n)
			}
			*ran = append(*ran, "flags")
			return nil
		}},
		{Name: "fail", Summary: "fails", Run: func(context.Context, Env) error { return errors.New("disk full") }},
		{Name: "cancel", Summary: "is interrupted", Run: func(context.Context, Env) error { return context.Canceled }},
		{Name: "denied", Summary: "wraps a cause in a usage error", Run: func(context.Context, Env) error {
			return UsageError("--out %s: %w", "x", fs.ErrPermission)
		}},
	}
}

func TestMainExitCodesAndMessages(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stdout string
		stderr string
		ran    string
	}{
		{args: []string{"ok", "a", "b"}, code: 0, ran: "ok:a,b"},
		{args: []string{"flags", "-n", "3"}, code: 0, ran: "flags"},
		{args: []string{"flags", "-n", "x"}, code: 2, stderr: "invalid value"},
		{args: []string{"flags", "-n", "-1"}, code: 2, stderr: "t2v flags: usage error: --n: -1 is negative"},
		{args: []string{"flags", "-h"}, code: 0, stderr: "-n int"},
		{args: []string{"fail"}, code: 1, stderr: "t2v fail: disk full"},
		{args: []string{"cancel"}, code: 130, stderr: "interrupted"},
		{args: []string{"denied"}, code: 2, stderr: "t2v denied: usage error: --out x: permission denied\n"},
		{args: []string{"nope"}, code: 2, stderr: `unknown command "nope" (run 't2v help' for the list)`},
		{args: []string{"fial"}, code: 2, stderr: `unknown command "fial" (did you mean "fail"?)`},
		{args: []string{"flags", "--m", "3"}, code: 2, stderr: "usage error: flag provided but not defined: -m\nrun "},
		{args: []string{"flags", "--nn", "3"}, code: 2, stderr: `flag provided but not defined: -nn (did you mean "--n"?)`},
		{args: nil, code: 2, stdout: "Commands:"},
		{args: []string{"help"}, code: 0, stdout: "  flags   parses a flag\n"},
		{args: []string{"help", "flags"}, code: 0, stdout: "-n int"},
		{args: []string{"help", "flag"}, code: 2, stdout: "Commands:", stderr: `t2v help: unknown command "flag" (did you mean "flags"?)`},
	}
	for _, c := range cases {
		var ran []string
		var out, errOut bytes.Buffer
		code := Main(context.Background(), "t2v", testCommands(&ran), c.args, &out, &errOut)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, errOut.String())
		}
		if c.stdout != "" && !strings.Contains(out.String(), c.stdout) {
			t.Errorf("%v: stdout %q lacks %q", c.args, out.String(), c.stdout)
		}
		if c.stderr != "" && !strings.Contains(errOut.String(), c.stderr) {
			t.Errorf("%v: stderr %q lacks %q", c.args, errOut.String(), c.stderr)
		}
		if got := strings.Join(ran, ";"); got != c.ran {
			t.Errorf("%v: ran %q, want %q", c.args, got, c.ran)
		}
	}
}

func TestParseFlagsTakesFlagsAnywhere(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // positional arguments, then the flags' values
	}{
		{[]string{"-k", "2", "a", "b c"}, "a|b c k=2 v=false o= p="},
		{[]string{"a", "-k", "5", "b"}, "a|b k=5 v=false o= p="},
		{[]string{"a", "b", "--k=3", "--o", "x"}, "a|b k=3 v=false o=x p="},
		{[]string{"a", "--", "-k", "x", "--"}, "a|-k|x|-- k=1 v=false o= p="},
		{[]string{"--", "-x"}, "-x k=1 v=false o= p="},
		{[]string{"-", "-k", "2"}, "- k=2 v=false o= p="},
		{[]string{"-v", "a", "-k", "4"}, "a k=4 v=true o= p="},
		{[]string{"-o", "--", "a", "-k", "4"}, "a k=4 v=false o=-- p="},
		{[]string{"--p", "x", "a", "--p", "y", "b"}, "a|b k=1 v=false o= p=x,y"},
		{nil, " k=1 v=false o= p="},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		k := fs.Int("k", 1, "")
		v := fs.Bool("v", false, "")
		o := fs.String("o", "", "")
		var p Paths
		fs.Var(&p, "p", "")
		err := ParseFlags(fs, c.args)
		got := fmt.Sprintf("%s k=%d v=%t o=%s p=%s", strings.Join(fs.Args(), "|"), *k, *v, *o, p.String())
		if err != nil || got != c.want {
			t.Errorf("%q: %q, %v; want %q", c.args, got, err, c.want)
		}
	}
}

func TestParseFlagsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"a", "-k"}, "usage error: flag needs an argument: -k"},
		{[]string{"a", "-x"}, "usage error: flag provided but not defined: -x"},
		{[]string{"a", "--kk", "1"}, `usage error: flag provided but not defined: -kk (did you mean "--k"?)`},
		{[]string{"a", "-k", "z"}, `usage error: invalid value "z" for flag -k: parse error`},
	} {
		var out bytes.Buffer
		fs := NewFlagSet("t", Env{Stderr: &out})
		fs.Int("k", 1, "")
		err := ParseFlags(fs, c.args)
		var fe *FlagError
		if !errors.As(err, &fe) || fe.Command != "text2vec-am t" || !errors.Is(err, ErrUsage) || err.Error() != c.want {
			t.Errorf("%q: %v (%#v), want a usage error %q of \"text2vec-am t\"", c.args, err, fe, c.want)
		}
		if out.Len() > 0 {
			t.Errorf("%q: printed %q; Main prints the error", c.args, out.String())
		}
	}
}

// A parse error is the error and a hint, not the whole usage; -h still
// prints the usage.
func TestMainFlagErrorIsShort(t *testing.T) {
	var ran []string
	var out, errOut bytes.Buffer
	code := Main(context.Background(), "t2v", testCommands(&ran), []string{"flags", "a", "--nn", "3"}, &out, &errOut)
	want := "t2v flags: usage error: flag provided but not defined: -nn (did you mean \"--n\"?)\n" +
		"run \"text2vec-am flags -h\" for its flags\n"
	if code != 2 || errOut.String() != want || out.Len() > 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out.String(), errOut.String(), want)
	}
	errOut.Reset()
	code = Main(context.Background(), "t2v", testCommands(&ran), []string{"flags", "a", "--help"}, &out, &errOut)
	if code != 0 || !strings.Contains(errOut.String(), "Usage of text2vec-am flags:\n  -n int\n") {
		t.Errorf("--help: exit %d, stderr %q; want 0 and the usage", code, errOut.String())
	}
}

func TestSuggest(t *testing.T) {
	cands := []string{"serve", "memory", "model", "refresh", "infer", "nn", "max-am-words", "max-contexts", "fail"}
	for _, c := range []struct{ word, want string }{
		{"serv", "serve"}, {"sreve", "serve"}, {"modle", "model"}, {"memroy", "memory"}, {"refersh", "refresh"},
		{"max-am-word", "max-am-words"}, {"max-contxts", "max-contexts"}, {"nm", "nn"}, {"fial", "fail"},
		{"x", ""}, {"zzzzz", ""}, {"", ""}, {"n", ""}, {"inference", ""}, {"ünfer", "infer"},
	} {
		if got := Suggest(c.word, cands); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}

// UsageError keeps the error of a %w verb: errors.Is and errors.As find it
// (and ErrUsage) through the result, whose message is the usual one; an
// error formatted with %v, or no error, is text only.
func TestUsageErrorWraps(t *testing.T) {
	cause := &fs.PathError{Op: "open", Path: "/data/out.vec", Err: fs.ErrPermission}
	err := UsageError("--out %s: %w", "/data/out.vec", cause)
	var pe *fs.PathError
	if !errors.Is(err, ErrUsage) || !errors.Is(err, fs.ErrPermission) || !errors.As(err, &pe) || pe != cause {
		t.Errorf("UsageError with %%w: %v; want errors.Is ErrUsage and fs.ErrPermission, errors.As the *fs.PathError", err)
	}
	if want := "usage error: --out /data/out.vec: open /data/out.vec: permission denied"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	plain := UsageError("--n: %d is negative, %v", -1, cause)
	if !errors.Is(plain, ErrUsage) || errors.Is(plain, fs.ErrPermission) || plain.Error() != "usage error: --n: -1 is negative, "+cause.Error() {
		t.Errorf("UsageError without %%w: %v; want a usage error that wraps nothing else", plain)
	}
}

func TestPathsRepeatable(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var p Paths
	fs.Var(&p, "corpus", "")
	if err := fs.Parse([]string{"--corpus", "a", "--corpus", "b,c"}); err != nil {
		t.Fatal(err)
	}
	if len(p) != 2 || p[0] != "a" || p[1] != "b,c" || p.String() != "a,b,c" {
		t.Fatalf("paths = %q (%s)", p, p.String())
	}
	if err := fs.Parse([]string{"--corpus", ""}); err == nil {
		t.Fatal("empty path accepted")
	}
}
