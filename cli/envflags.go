package cli

import (
	"flag"
	"fmt"
	"strings"
)

// EnvName returns the environment variable that sets the flag name under
// prefix: the name in capitals with '-' as '_' after the prefix, as in
// EnvName("TEXT2VEC_AM_", "memory-dir") == "TEXT2VEC_AM_MEMORY_DIR".
func EnvName(prefix, name string) string {
	return prefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// ParseFlagsEnv parses args into fs as ParseFlags does, then sets every flag
// not given in args from its environment variable (EnvName(prefix, flag)),
// as lookup finds it; a variable that is unset, empty or blank leaves the flag
// at its default. So a flag beats its variable, which beats the default.
// fromEnv lists the variables used, as "NAME=value". A value the flag refuses
// is a usage error naming the variable and the value. fs's usage message
// says how the variables are named.
func ParseFlagsEnv(fs *flag.FlagSet, args []string, prefix string, lookup func(string) (string, bool)) (fromEnv []string, err error) {
	printDefaults := fs.Usage
	fs.Usage = func() {
		if printDefaults != nil {
			printDefaults()
		} else {
			fmt.Fprintf(fs.Output(), "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
		example := ""
		fs.VisitAll(func(f *flag.Flag) {
			if example == "" && strings.Contains(f.Name, "-") {
				example = fmt.Sprintf(" (--%s: %s)", f.Name, EnvName(prefix, f.Name))
			}
		})
		fmt.Fprintf(fs.Output(), "\nEvery flag can be set by an environment variable: %s and the flag's name in capitals, "+
			"- as _%s.\nA flag on the command line wins over its variable.\n", prefix, example)
	}
	if err := ParseFlags(fs, args); err != nil {
		return nil, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	fs.VisitAll(func(f *flag.Flag) {
		name := EnvName(prefix, f.Name)
		v, ok := lookup(name)
		if err != nil || given[f.Name] || !ok || strings.TrimSpace(v) == "" {
			return
		}
		if serr := fs.Set(f.Name, v); serr != nil {
			flagName := "--" + f.Name
			if kind, _ := flag.UnquoteUsage(f); kind != "" {
				flagName += " " + kind // as -h shows it: "--max-batch int"
			}
			err = UsageError("environment variable %s=%q (%s): %w", name, v, flagName, serr)
			return
		}
		fromEnv = append(fromEnv, name+"="+v)
	})
	return fromEnv, err
}
