package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/command"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
)

// updateDocs rewrites the generated parts of the documents instead of
// checking them: go test -run TestConfigurationPage -update-docs .
var updateDocs = flag.Bool("update-docs", false, "rewrite the generated tables of docs/configuration.md")

const configPage = "docs/configuration.md"

// mdCell escapes a table cell's text for Markdown.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// code is s in backticks, or "—" when s is empty.
func code(s string) string {
	if s == "" {
		return "—"
	}
	return "`" + s + "`"
}

// settingsTable renders the vectorizer's settings table (vectorizer.Settings)
// with each setting's default, as the flags registered from DefaultOptions give it.
func settingsTable() string {
	fs := flag.NewFlagSet("settings", flag.ContinueOnError)
	opts := vectorizer.DefaultOptions()
	vectorizer.RegisterFlags(fs, &opts)
	var b strings.Builder
	b.WriteString("| request key | flag | environment variable | moduleConfig | default | meaning |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, s := range vectorizer.Settings() {
		flagName, def := "", ""
		if s.Flag != "" {
			flagName = "--" + s.Flag
			def = fs.Lookup(s.Flag).DefValue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", code(s.Request), code(flagName), code(s.Env),
			code(s.ModuleConfig), code(def), mdCell(s.Usage))
	}
	return b.String()
}

// serveFlagRE matches one flag of serve -h and the line of usage after it.
var serveFlagRE = regexp.MustCompile(`(?m)^  -([a-z0-9-]+)(?: \S+)?\n\s+(.*)$`)

// defaultRE matches the "(default X)" flag.PrintDefaults appends.
var defaultRE = regexp.MustCompile(` \(default (.*)\)$`)

// serveFlagsTable renders every flag of text2vec-am serve from its -h output,
// with the environment variable that sets it (cli.ParseFlagsEnv). A default
// that grows with the CPUs Go runs on (GOMAXPROCS 1 and 2 give two values) is
// written as so many times GOMAXPROCS, so the page is the same whatever
// machine renders it.
func serveFlagsTable() string {
	prev := runtime.GOMAXPROCS(1)
	oneCPU := serveFlagDefaults()
	runtime.GOMAXPROCS(2)
	twoCPUs := serveFlagDefaults()
	runtime.GOMAXPROCS(prev)
	var b strings.Builder
	b.WriteString("| flag | environment variable | default | meaning |\n|---|---|---|---|\n")
	for _, f := range twoCPUs {
		def := code(f.def)
		if one := flagDefault(oneCPU, f.name); one != f.def {
			def = code(one) + " × GOMAXPROCS"
			if n, err := strconv.Atoi(one); err != nil || strconv.Itoa(2*n) != f.def {
				def = code(one) + " on one CPU, " + code(f.def) + " on two"
			}
		}
		env := cli.EnvName(command.EnvPrefix, f.name)
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", code("--"+f.name), code(env), def, mdCell(f.usage))
	}
	return b.String()
}

// serveFlag is one flag of text2vec-am serve -h.
type serveFlag struct{ name, def, usage string }

// serveFlagDefaults reads the flags of text2vec-am serve -h, in order.
func serveFlagDefaults() []serveFlag {
	var out []serveFlag
	for _, m := range serveFlagRE.FindAllStringSubmatch(helpOutput("serve", "-h"), -1) {
		f := serveFlag{name: m[1], usage: m[2]}
		if d := defaultRE.FindStringSubmatch(f.usage); d != nil {
			f.def = strings.Trim(d[1], `"`)
			f.usage = strings.TrimSuffix(f.usage, d[0])
		}
		out = append(out, f)
	}
	return out
}

// flagDefault is the default of the flag name in flags ("" when absent).
func flagDefault(flags []serveFlag, name string) string {
	for _, f := range flags {
		if f.name == name {
			return f.def
		}
	}
	return ""
}

// TestServeFlagsTableComplete checks that serveFlagRE reads every flag of
// serve -h (a usage that PrintDefaults renders otherwise would be left out).
func TestServeFlagsTableComplete(t *testing.T) {
	help := helpOutput("serve", "-h")
	flags := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(help, -1)
	read := serveFlagRE.FindAllStringSubmatch(help, -1)
	if len(flags) == 0 || len(read) != len(flags) {
		t.Errorf("serve -h lists %d flags, the table reads %d", len(flags), len(read))
	}
}

// generatedBlocks are the parts of the configuration page generated from the
// code, each between <!-- begin NAME --> and <!-- end NAME -->.
func generatedBlocks() map[string]string {
	return map[string]string{"settings": settingsTable(), "serve-flags": serveFlagsTable()}
}

// TestConfigurationPage checks that docs/configuration.md lists the
// vectorizer's settings table and serve's flags exactly as the code defines
// them, and that every TEXT2VEC_AM_ variable the module reads is documented.
func TestConfigurationPage(t *testing.T) {
	text, err := os.ReadFile(configPage)
	if err != nil {
		t.Fatal(err)
	}
	page := string(text)
	for name, want := range generatedBlocks() {
		begin, end := "<!-- begin "+name+" -->\n", "<!-- end "+name+" -->"
		i, j := strings.Index(page, begin), strings.Index(page, end)
		if i < 0 || j < i {
			t.Fatalf("%s: no %q … %q block", configPage, begin, end)
		}
		got := page[i+len(begin) : j]
		if got == want {
			continue
		}
		if *updateDocs {
			page = page[:i+len(begin)] + want + page[j:]
			continue
		}
		t.Errorf("%s: the %s table differs from the code; run go test -run TestConfigurationPage -update-docs .\n"+
			"want:\n%s\ngot:\n%s", configPage, name, want, got)
	}
	if *updateDocs {
		if err := os.WriteFile(configPage, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range moduleEnvVars(t) {
		if !strings.Contains(page, "`"+v+"`") {
			t.Errorf("%s does not document the environment variable %s", configPage, v)
		}
	}
}

// moduleEnvVars returns the TEXT2VEC_AM_ variables named in the module's and
// the server's Go source.
func moduleEnvVars(t *testing.T) []string {
	t.Helper()
	re := regexp.MustCompile(`"(TEXT2VEC_AM_[A-Z_]+)"`)
	seen := map[string]bool{}
	var out []string
	for _, dir := range []string{"module", "adapter"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			src, err := os.ReadFile(dir + "/" + e.Name())
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				if !seen[m[1]] {
					seen[m[1]] = true
					out = append(out, m[1])
				}
			}
		}
	}
	if len(out) < 5 {
		t.Fatalf("found only %d TEXT2VEC_AM_ variables in module/ and adapter/; the scan is broken", len(out))
	}
	return out
}
