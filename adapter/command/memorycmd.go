package command

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/cli"
)

// memoryCommand is "memory": a group of subcommands over one --memory-dir.
func memoryCommand() cli.Command {
	sub := func(name, summary string) cli.Command {
		return cli.Command{Name: name, Summary: summary, Run: func(ctx context.Context, env cli.Env) error {
			return runMemory(ctx, env, name)
		}}
	}
	return cli.Group("memory", "inspect, warm, rebuild or reset the context memory: memory warm FILES…|rebuild|stats|check|export|clear|delete", "subcommand",
		"Every subcommand takes --memory-dir DIR (rebuild: or --module-memory DIR or --memory-weaviate URL; "+
			"delete: --memory-weaviate URL or --module-memory DIR). "+
			"Stop the server first for warm, rebuild and clear (the directory is locked while it runs).",
		[]cli.Command{
			sub("warm", "teach the memory from text files (FILES…, plain or gzip; one passage per line): the contexts of rare words and, for sif-collection, the document frequencies (each line counts once)"),
			{Name: "rebuild", Summary: "recompute a collection's memory from its objects in Weaviate " +
				"(--class; into --memory-dir, --module-memory or --memory-weaviate); then run refresh", Run: runRebuild},
			sub("stats", "print a JSON summary (with any damaged file Open salvaged)"),
			sub("check", "report the directory's health as JSON and change nothing; exit status 1 if damaged"),
			sub("export", "print every word with its contexts as JSON lines"),
			sub("clear", "forget everything (needs --yes)"),
			{Name: "delete", Summary: "forget a collection's or a tenant's memory (--class, --tenant, --yes), kept in Weaviate " +
				"(--memory-weaviate URL) or in the in-process module's directory (--module-memory DIR): Weaviate does not tell the module " +
				"when it deletes them", Run: runDelete},
		})
}

// runMemory runs "memory sub" with env.Args after the subcommand's name.
func runMemory(ctx context.Context, env cli.Env, sub string) error {
	args := env.Args
	fs := cli.NewFlagSet("memory "+sub, env)
	var mf memoryFlags
	var vf vectorizerFlags
	var yes bool
	switch sub {
	case "warm":
		mf.register(fs, memoryWarm)
		vf.register(fs)
	case "stats", "check", "export":
		mf.register(fs, memoryRead)
	case "clear":
		mf.register(fs, memoryClear)
		fs.BoolVar(&yes, "yes", false, "really forget everything")
	default:
		return cli.UsageError("unknown memory subcommand %q: want warm, stats, check, export or clear", sub)
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if mf.dir == "" {
		return cli.UsageError("--memory-dir is required")
	}
	if sub != "warm" && fs.NArg() > 0 {
		return cli.UsageError("unexpected arguments %q (all inputs are flags)", fs.Args())
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, nil))
	switch sub {
	case "check":
		return checkMemory(env, &mf, log)
	case "stats", "export":
		return readMemory(env, sub, &mf, log)
	case "clear":
		if !yes {
			return cli.UsageError("--yes is required: clear forgets every remembered context")
		}
		return clearMemory(env, &mf, log)
	}
	return warm(ctx, env, fs.Args(), &mf, &vf, log)
}

// readMemory runs memory stats (JSON on stdout) or memory export.
func readMemory(env cli.Env, sub string, mf *memoryFlags, log *slog.Logger) error {
	o, err := mf.options(log, true)
	if err != nil {
		return err
	}
	if _, err := os.Stat(mf.dir); err != nil {
		return fmt.Errorf("--memory-dir: %w", err)
	}
	mem, err := memory.Open(mf.dir, o)
	if err != nil {
		return err
	}
	defer mem.Close()
	if sub == "export" {
		w := bufio.NewWriter(env.Stdout)
		if err := mem.Export(w); err != nil {
			return err
		}
		return w.Flush()
	}
	out := memoryStats{Stats: mem.Stats()}
	out.Collections, out.CollectionProblems = collectionSummaries(mf.dir, o)
	return printReport(env.Stdout, mf.dir, out, out.CollectionProblems)
}

// printReport prints report as indented JSON and then fails, naming them, if
// problems lists collections whose counts could not be read: what could be
// read is printed, the exit status says it is not all (as ls does).
func printReport(w io.Writer, dir string, report any, problems []string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(report); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: cannot read the passage counts of every collection: %s", dir, strings.Join(problems, "; "))
	}
	return nil
}

// clearMemory runs memory clear: the memory and its collections' counts.
func clearMemory(env cli.Env, mf *memoryFlags, log *slog.Logger) error {
	o, err := mf.options(log, false)
	if err != nil {
		return err
	}
	mem, err := memory.Open(mf.dir, o)
	if err != nil {
		return err
	}
	if err := mem.Clear(); err != nil {
		mem.Close()
		return err
	}
	colls := memory.NewCollections(mf.dir, o, memory.MaxCollections) // their counts too (the memory's lock is held)
	if err := errors.Join(colls.Clear(), colls.Close()); err != nil {
		mem.Close()
		return err
	}
	fmt.Fprintf(env.Stdout, "cleared the context memory in %s\n", mf.dir)
	return mem.Close()
}

// memoryHealth is what memory check prints.
type memoryHealth struct {
	Dir         string                       `json:"dir"`
	Healthy     bool                         `json:"healthy"`
	Files       []memoryFile                 `json:"files"`
	Damaged     []memory.Damage              `json:"damaged"`
	Words       int                          `json:"words"`
	Contexts    int                          `json:"contexts"`
	Passages    int64                        `json:"passages"`
	Collections map[string]collectionSummary `json:"collections,omitempty"`
	// CollectionProblems names what under collections/ could not be read.
	CollectionProblems []string `json:"collection_problems,omitempty"`
}

type memoryFile struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// memoryStats is what memory stats prints: the memory's Stats and the
// passage counts of each collection kept beside it.
type memoryStats struct {
	memory.Stats
	Collections        map[string]collectionSummary `json:"collections,omitempty"`
	CollectionProblems []string                     `json:"collection_problems,omitempty"`
}

// collectionSummary is one collection's passage counts (memory.Collections)
// as memory stats and memory check print them. Damaged files are named
// relative to the memory directory.
type collectionSummary struct {
	Passages        int64           `json:"passages"`
	DocFreqWords    int             `json:"df_words"`
	DocFreqRejected int64           `json:"df_rejected"`
	Damaged         []memory.Damage `json:"damaged,omitempty"`
	dir             string          // the collection's directory
}

// collectionSummaries reads, read-only, the passage counts of every
// collection kept beside the memory in dir; problems names, one a line, what
// could not be read (collections/ itself, or a collection's directory).
func collectionSummaries(dir string, o memory.Options) (_ map[string]collectionSummary, problems []string) {
	all, err := memory.CollectionStats(dir, o)
	if err != nil {
		problems = strings.Split(err.Error(), "\n")
	}
	if len(all) == 0 {
		return nil, problems
	}
	out := make(map[string]collectionSummary, len(all))
	for name, st := range all {
		cs := collectionSummary{Passages: st.Passages, DocFreqWords: st.DocFreqWords, DocFreqRejected: st.DocFreqRejected, dir: st.Dir}
		rel, _ := filepath.Rel(dir, st.Dir)
		for _, d := range st.Damaged {
			d.File = filepath.Join(rel, d.File)
			cs.Damaged = append(cs.Damaged, d)
		}
		out[name] = cs
	}
	return out, problems
}

// checkMemory reads a memory directory read-only (salvaging in RAM what a
// writable Open would salvage), with the passage counts of its collections,
// and reports its health; it changes nothing.
func checkMemory(env cli.Env, mf *memoryFlags, log *slog.Logger) error {
	o, err := mf.options(log, true)
	if err != nil {
		return err
	}
	h := memoryHealth{Dir: mf.dir, Files: []memoryFile{}, Damaged: []memory.Damage{}}
	if h.Files, err = listMemoryFiles(h.Files, mf.dir, ""); err != nil {
		return fmt.Errorf("list the files of %s: %w", mf.dir, err)
	}
	mem, err := memory.Open(mf.dir, o)
	if err != nil {
		return err
	}
	st := mem.Stats()
	mem.Close()
	h.Damaged = append(h.Damaged, st.Damaged...)
	h.Words, h.Contexts, h.Passages = st.Words, st.Contexts, st.Passages
	h.Collections, h.CollectionProblems = collectionSummaries(mf.dir, o)
	for _, name := range slices.Sorted(maps.Keys(h.Collections)) {
		cs := h.Collections[name]
		h.Damaged = append(h.Damaged, cs.Damaged...)
		rel, _ := filepath.Rel(mf.dir, cs.dir)
		if h.Files, err = listMemoryFiles(h.Files, cs.dir, rel); err != nil {
			h.CollectionProblems = append(h.CollectionProblems, err.Error())
		}
	}
	h.Healthy = len(h.Damaged) == 0 && len(h.CollectionProblems) == 0
	for _, f := range h.Files {
		if strings.Contains(f.Name, ".damaged") {
			h.Healthy = false // moved aside earlier: an operator should look at it
		}
	}
	if err := printReport(env.Stdout, mf.dir, h, h.CollectionProblems); err != nil {
		return err
	}
	if !h.Healthy {
		return fmt.Errorf("%s is damaged (%d files salvaged in RAM; a writable open moves them aside)", mf.dir, len(h.Damaged))
	}
	return nil
}

// listMemoryFiles appends the regular files of dir to files, named under
// prefix.
func listMemoryFiles(files []memoryFile, dir, prefix string) ([]memoryFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return files, err
	}
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			files = append(files, memoryFile{Name: filepath.Join(prefix, e.Name()), Bytes: info.Size()})
		}
	}
	return files, nil
}
