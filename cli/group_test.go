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
