package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Group returns a command whose first argument names one of subs, which then
// runs with the remaining arguments: "text2vec-am eval chimeras …". noun names
// the subcommands in messages and the help ("task", "subcommand"); note, when
// not empty, is printed after the list. With no argument, or -h, --help or
// help, the group prints its subcommands; a missing or unknown name is a usage
// error naming the ones there are.
func Group(name, summary, noun, note string, subs []Command) Command {
	g := Command{Name: name, Summary: summary, Subcommands: subs}
	g.Run = func(ctx context.Context, env Env) error {
		names := commandNames(subs)
		want := strings.Join(names, ", ")
		if len(env.Args) == 0 || env.Args[0] == "-h" || env.Args[0] == "--help" || env.Args[0] == "help" {
			printGroup(env.Stderr, g, noun, note)
			if len(env.Args) == 0 {
				return UsageError("missing %s: want %s", noun, want)
			}
			return flag.ErrHelp
		}
		for _, c := range subs {
			if c.Name == env.Args[0] {
				sub := env
				sub.Args = env.Args[1:]
				return c.Run(ctx, sub)
			}
		}
		printGroup(env.Stderr, g, noun, note)
		return UsageError("unknown %s %q%s: want %s", noun, env.Args[0], didYouMean(env.Args[0], "", names), want)
	}
	return g
}

func printGroup(w io.Writer, g Command, noun, note string) {
	fmt.Fprintf(w, "Usage: text2vec-am %s <%s> [flags] [args]\n\n%s%ss:\n", g.Name, noun, strings.ToUpper(noun[:1]), noun[1:])
	width := 0
	for _, c := range g.Subcommands {
		width = max(width, len(c.Name))
	}
	for _, c := range g.Subcommands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
	if note != "" {
		fmt.Fprintf(w, "\n%s\n", note)
	}
	fmt.Fprintf(w, "\nRun 'text2vec-am %s <%s> -h' for its flags.\n", g.Name, noun)
}
