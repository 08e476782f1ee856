package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestGroupDispatchesToSubcommands(t *testing.T) {
	var got []string
	leaf := func(name string) Command {
		return Command{Name: name, Summary: name + " things", Run: func(_ context.Context, env Env) error {
			got = append(got, name+":"+strings.Join(env.Args, ","))
			return nil
		}}
	}
	g := Group("tool", "a group", "task", "a note", []Command{leaf("a"), leaf("b")})
	if len(g.Subcommands) != 2 {
		t.Fatalf("subcommands %v", g.Subcommands)
	}
	var out, errb bytes.Buffer
	if code := Main(context.Background(), "prog", []Command{g}, []string{"tool", "b", "-x", "y"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if len(got) != 1 || got[0] != "b:-x,y" {
		t.Fatalf("ran %q", got)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tool"}, 2, "missing task: want a, b"},
		{[]string{"tool", "c"}, 2, `unknown task "c": want a, b`},
		{[]string{"tool", "bb"}, 2, `unknown task "bb" (did you mean "b"?): want a, b`},
		{[]string{"tool", "-h"}, 0, "a note"},
	} {
		errb.Reset()
		if code := Main(context.Background(), "prog", []Command{g}, tc.args, &out, &errb); code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
	err := g.Run(context.Background(), Env{Args: nil, Stdout: &out, Stderr: &errb})
	if !errors.Is(err, ErrUsage) {
		t.Errorf("no subcommand: %v, want ErrUsage", err)
	}
	if err := g.Run(context.Background(), Env{Args: []string{"help"}, Stdout: &out, Stderr: &errb}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("help: %v, want flag.ErrHelp", err)
	}
}

// TestGroupErrorsNameTheSubcommand: Main names the whole command that
// failed, the subcommands of nested groups included, whatever the error:
// a usage error, a flag the subcommand does not take, a failure, an
// interruption. A group's own errors name the group.
func TestGroupErrorsNameTheSubcommand(t *testing.T) {
	fail := func(name string, err error) Command {
		return Command{Name: name, Summary: name, Run: func(context.Context, Env) error { return err }}
	}
	stats := Command{Name: "stats", Summary: "flags", Run: func(_ context.Context, env Env) error {
		fs := NewFlagSet("tool stats", env)
		fs.String("dir", "", "")
		return ParseFlags(fs, env.Args)
	}}
	inner := Group("inner", "a nested group", "task", "", []Command{fail("deep", errors.New("broke"))})
	g := Group("tool", "a group", "task", "", []Command{stats, inner, fail("bad", UsageError("--n: want > 0")),
		fail("down", errors.New("disk full")), fail("stop", context.Canceled)})
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tool", "stats", "--sync", "never"}, 2,
			"prog tool stats: usage error: flag provided but not defined: -sync\nrun \"text2vec-am tool stats -h\" for its flags\n"},
		{[]string{"tool", "bad"}, 2, "prog tool bad: usage error: --n: want > 0\n"},
		{[]string{"tool", "down"}, 1, "prog tool down: disk full\n"},
		{[]string{"tool", "stop"}, 130, "prog tool stop: interrupted\n"},
		{[]string{"tool", "inner", "deep"}, 1, "prog tool inner deep: broke\n"},
	} {
		var out, errb bytes.Buffer
		if code := Main(context.Background(), "prog", []Command{g}, c.args, &out, &errb); code != c.code || errb.String() != c.want {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
	var out, errb bytes.Buffer
	if code := Main(context.Background(), "prog", []Command{g}, []string{"tool", "nope"}, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "prog tool: usage error: unknown task \"nope\"") {
		t.Errorf("unknown subcommand: exit %d, stderr %q; want the group named", code, errb.String())
	}
	err := g.Run(context.Background(), Env{Args: []string{"inner", "deep"}, Stdout: &out, Stderr: &errb})
	if err == nil || err.Error() != "broke" {
		t.Errorf("a nested subcommand's error from Run: %v, want its own message", err)
	}
	var fe *FlagError
	err = g.Run(context.Background(), Env{Args: []string{"stats", "--x"}, Stdout: &out, Stderr: &errb})
	if !errors.Is(err, ErrUsage) || !errors.As(err, &fe) || fe.Command != "text2vec-am tool stats" {
		t.Errorf("a subcommand's flag error from Run: %v; want a *FlagError and ErrUsage", err)
	}
}
