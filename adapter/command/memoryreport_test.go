package command_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/testhttp"
)

// TestWarmReportsEvictions: memory warm past --memory-max-words says how
// many words it evicted and how many contexts they held.
func TestWarmReportsEvictions(t *testing.T) {
	mf := modelFile(t)
	corpus := filepath.Join(t.TempDir(), "corpus.txt")
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, "zqevict%d f1 f2.\n", i)
	}
	if err := os.WriteFile(corpus, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "memory")
	code, out, stderr := runCLI(context.Background(), "memory", "warm", "--model", mf, "--memory-dir", dir,
		"--memory-max-words", "5", corpus)
	if code != 0 || !strings.Contains(out, "the memory holds 5 words") ||
		!strings.Contains(out, "15 words were evicted, their 15 contexts forgotten, to keep within --memory-max-words 5") {
		t.Fatalf("warm past --memory-max-words: exit %d, %q, %q; want the evictions counted", code, out, stderr)
	}
	code, out, _ = runCLI(context.Background(), "memory", "warm", "--model", mf, "--memory-dir", filepath.Join(t.TempDir(), "m2"),
		corpus)
	if code != 0 || strings.Contains(out, "evicted") {
		t.Errorf("warm within the budget: exit %d, %q; want no evictions reported", code, out)
	}
}

// TestServeReportsEvictions: a server counts the words it evicted in
// /metrics and /meta.
func TestServeReportsEvictions(t *testing.T) {
	mf := modelFile(t)
	url, stop, _ := startServe(t, "--model", mf, "--memory-max-words", "2")
	defer stop()
	status, _, body := testhttp.Post(t, url, "/vectors",
		`{"text":"Zqone f1. Zqtwo f2. Zqthree f3. Zqfour f4. Zqfive f5.","config":{"task_type":"passage"}}`)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	if code, _, body := testhttp.Get(t, url+"/metrics"); code != 200 || !strings.Contains(body, "\nt2vam_memory_evicted_words_total 3\n") {
		t.Errorf("metrics: %d; want t2vam_memory_evicted_words_total 3 in %s", code, body)
	}
	if code, _, body := testhttp.Get(t, url+"/meta"); code != 200 || !strings.Contains(body, `"words":2,`) ||
		!strings.Contains(body, `"evicted":3,`) {
		t.Errorf("meta: %d %s; want 2 words, 3 evicted", code, body)
	}
}

// TestServeMemoryOffNeedsDir: serve --memory off reads the memory of
// --memory-dir: a directory that does not exist (a mistyped path) fails at
// start naming the flag and the path, and an existing one is served.
func TestServeMemoryOffNeedsDir(t *testing.T) {
	mf := modelFile(t)
	missing := filepath.Join(t.TempDir(), "no-such-memory")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a server that starts runs until then
	defer cancel()
	code, _, stderr := runCLI(ctx, "serve", "--addr", "127.0.0.1:0", "--model", mf, "--memory", "off",
		"--memory-dir", missing)
	if code != 1 || !strings.Contains(stderr, "--memory-dir "+missing+": --memory off reads an existing memory") {
		t.Fatalf("serve --memory off on a missing directory: exit %d, %q; want 1 naming --memory-dir and the path", code, stderr)
	}
	url, stop, _ := startServe(t, "--model", mf, "--memory", "off", "--memory-dir", t.TempDir())
	defer stop()
	if code, _, body := testhttp.Get(t, url+"/meta"); code != 200 || !strings.Contains(body, `"read_only":true`) {
		t.Errorf("meta of serve --memory off on an existing directory: %d %s", code, body)
	}
}

// TestMemorySubcommandFlags: each memory subcommand lists only the flags it
// uses, with help true for it, and refuses the others.
func TestMemorySubcommandFlags(t *testing.T) {
	for _, c := range []struct {
		sub           string
		want, without []string
	}{
		{"stats", []string{"directory of an existing context memory (required)", "-memory-max-words", "evicted in RAM as it is read"},
			[]string{"-yes", "-memory-sync", "-memory-snapshot-every", "created 0700", "RAM only"}},
		{"check", []string{"directory of an existing context memory", "-memory-max-bytes"}, []string{"-yes", "-memory-sync"}},
		{"export", []string{"directory of an existing context memory", "-memory-max-contexts"}, []string{"-yes", "-memory-snapshot-every"}},
		{"clear", []string{"-yes", "really forget everything", "context memory to clear (required)"},
			[]string{"clear: really", "-memory-max-words", "-memory-sync"}},
		{"warm", []string{"context memory to teach (required; created 0700 if missing)", "-memory-snapshot-every", `(default "never")`},
			[]string{"-yes", "RAM only", "before answering", "--memory-witness"}},
	} {
		_, _, help := runCLI(context.Background(), "memory", c.sub, "-h")
		checkText(t, "memory "+c.sub+" -h", help, c.want, c.without)
	}
	code, _, stderr := runCLI(context.Background(), "memory", "stats", "--memory-dir", t.TempDir(), "--yes")
	if code != 2 || !strings.Contains(stderr, "-yes") {
		t.Errorf("memory stats --yes: exit %d, %q; want a usage error", code, stderr)
	}
}
