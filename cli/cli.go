// Package cli holds the small command framework behind the text2vec-am binary:
// a Command is one subcommand (or, made by Group, a group of them: "eval
// chimeras", "memory warm"), and Main dispatches os.Args to the right one.
//
// Each component package (trainer, adapter, demo, ...) exposes its subcommands
// as a Commands() []cli.Command function; main.go lists them. There is no
// package-level registry.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Env is what a command gets to run with: its arguments (after the command
// name), its standard streams and a context cancelled on SIGINT/SIGTERM.
type Env struct {
	Args   []string
	Stdout io.Writer
	Stderr io.Writer
	// Stdin is the standard input; nil: the process's (see Input).
	Stdin io.Reader
}

// Input returns the standard input: Stdin, or os.Stdin when it is nil.
func (e Env) Input() io.Reader {
	if e.Stdin == nil {
		return os.Stdin
	}
	return e.Stdin
}

// Command is one subcommand of the text2vec-am binary.
type Command struct {
	// Name is the word that selects the command, e.g. "serve".
	Name string
	// Summary is one line for the help listing.
	Summary string
	// Run executes the command. Returning ErrUsage prints the command's usage.
	// For a group (made by Group) it dispatches to Subcommands.
	Run func(ctx context.Context, env Env) error
	// Subcommands are the commands of a group ("eval chimeras", "memory warm"):
	// the group's first argument names one of them.
	Subcommands []Command
}

// ErrUsage reports that a command was called with bad arguments; the error
// message says what is wrong and Main exits with status 2.
var ErrUsage = errors.New("usage error")

// UsageError returns a usage error (exit status 2) with the message
// "usage error: " and format's, formatted as fmt.Errorf does: a %w verb
// wraps its error, which errors.Is and errors.As then find through the
// result, as they find ErrUsage. Write %w, not %v, for an error argument.
func UsageError(format string, args ...any) error {
	return fmt.Errorf("%w: %w", ErrUsage, fmt.Errorf(format, args...))
}

// NewFlagSet returns a flag.FlagSet for a subcommand that reports errors
// instead of exiting and writes its usage to env.Stderr.
func NewFlagSet(name string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet("text2vec-am "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
}

// ParseFlags parses args into fs; fs.Args() then returns the positional
// arguments in order. Flags may come before, between and after them
// ("memory warm corpus.txt --memory-dir D"); "--" ends the flags (everything
// after it is positional, "-x" too), and a lone "-" is positional (stdin).
// -h or --help prints fs's usage and returns flag.ErrHelp (exit status 0). A
// parse failure prints nothing and returns a *FlagError, a usage error that
// Main shows with a hint to run the command with -h.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := parseQuietly(fs, args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 || endsFlags(fs, args[:len(args)-len(rest)]) {
			pos = append(pos, rest...)
			break
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
	// A last parse of "--" and the positional arguments sets fs.Args() to them.
	return fs.Parse(append([]string{"--"}, pos...))
}

// FlagError is a failure to parse the flags of Command ("text2vec-am serve"):
// an unknown flag, a missing or bad value. Err is a usage error (ErrUsage).
type FlagError struct {
	Command string
	Err     error
}

// Error returns Err's message.
func (e *FlagError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *FlagError) Unwrap() error { return e.Err }

// parseQuietly runs fs.Parse(args) without the flag package's printing of the
// error and the whole usage on a failure; for -h it prints the usage.
func parseQuietly(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		if usage != nil {
			usage()
		} else {
			fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
		return err
	}
	return &FlagError{Command: fs.Name(), Err: UsageError("%w%s", err, flagSuggestion(fs, err))}
}

// endsFlags reports whether parsed, the arguments a successful fs.Parse took,
// end with "--" as the end of the flags rather than as a flag's value
// ("--out --").
func endsFlags(fs *flag.FlagSet, parsed []string) bool {
	for i := 0; i < len(parsed); i++ {
		if parsed[i] == "--" {
			return i == len(parsed)-1
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(parsed[i], "-"), "=")
		if f := fs.Lookup(name); f != nil && !hasValue && !isBoolFlag(f) {
			i++ // its value
		}
	}
	return false
}

// isBoolFlag reports whether f takes no value ("--yes"), as the flag package
// decides it.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Main runs the command named by args[0] and returns the process exit status.
func Main(ctx context.Context, name string, cmds []Command, args []string, stdout, stderr io.Writer) int {
	byName := make(map[string]Command, len(cmds))
	for _, c := range cmds {
		byName[c.Name] = c
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := byName[args[1]]; ok {
				_ = c.Run(ctx, Env{Args: []string{"-h"}, Stdout: stdout, Stderr: stdout})
				return 0
			}
			printHelp(stdout, name, cmds)
			fmt.Fprintf(stderr, "%s help: unknown command %q%s\n", name, args[1], didYouMean(args[1], "", commandNames(cmds)))
			return 2
		}
		printHelp(stdout, name, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...) // as "go version" and "git --version" both work
	}
	c, ok := byName[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q%s (run '%s help' for the list)\n", name, args[0], didYouMean(args[0], "", commandNames(cmds)), name)
		return 2
	}
	err := c.Run(ctx, Env{Args: args[1:], Stdout: stdout, Stderr: stderr})
	cmd := commandPath(c.Name, err) // "memory stats" for a subcommand of a group
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		fmt.Fprintf(stderr, "%s %s: %v\n", name, cmd, err)
		if fe := (*FlagError)(nil); errors.As(err, &fe) {
			fmt.Fprintf(stderr, "run \"%s -h\" for its flags\n", fe.Command)
		}
		return 2
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "%s %s: interrupted\n", name, cmd)
		return 130
	default:
		fmt.Fprintf(stderr, "%s %s: %v\n", name, cmd, err)
		return 1
	}
}

// commandNames returns the names of cmds.
func commandNames(cmds []Command) []string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	return names
}

func printHelp(w io.Writer, name string, cmds []Command) {
	sorted := append([]Command(nil), cmds...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	width := 0
	for _, c := range sorted {
		width = max(width, len(c.Name))
	}
	fmt.Fprintf(w, "%s: word vectors for rare and unseen words by Attentive Mimicking, for Weaviate.\n\n", name)
	fmt.Fprintf(w, "Usage: %s <command> [flags] [args]\n\nCommands:\n", name)
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\nRun '%s help <command>' or '%s <command> -h' for a command's flags.\n", name, name)
}

// Paths is a repeatable flag of paths (a flag.Value): every use adds one
// path, so "--corpus a --corpus b" means both. An empty value is an error.
type Paths []string

// String joins the paths with commas.
func (p *Paths) String() string {
	if p == nil {
		return ""
	}
	return strings.Join(*p, ",")
}

// Set adds one path.
func (p *Paths) Set(s string) error {
	if s == "" {
		return errors.New("empty path")
	}
	*p = append(*p, s)
	return nil
}
