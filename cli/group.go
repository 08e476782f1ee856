package cli

import (
	"context"
	"errors"
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
				if err := c.Run(ctx, sub); err != nil {
					return &subcommandError{name: c.Name, err: err}
				}
				return nil
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

// subcommandError is the error of the subcommand name of a group, so that
// Main names the whole command ("text2vec-am memory stats: …"). Its message
// and what errors.Is and errors.As find are err's.
type subcommandError struct {
	name string
	err  error
}

func (e *subcommandError) Error() string { return e.err.Error() }

func (e *subcommandError) Unwrap() error { return e.err }

// commandPath returns the command that failed with err, of which top is the
// command Main ran: top and the subcommands err names, as in "memory stats".
func commandPath(top string, err error) string {
	path := top
	for se := (*subcommandError)(nil); errors.As(err, &se); err = se.err {
		path += " " + se.name
	}
	return path
}
