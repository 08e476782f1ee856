package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/command"
	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/testfiles"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
)

// TestHostileModelFiles: --model /dev/zero, a FIFO and a directory are
// refused at once (the FIFO used to block open and ignore SIGTERM).
func TestHostileModelFiles(t *testing.T) {
	serve := func(p string) error {
		if code, _, stderr := runCLI(t.Context(), "serve", "--model", p, "--addr", "127.0.0.1:0"); code != 0 {
			return &exitError{code, stderr}
		}
		return nil
	}
	testfiles.RefusesNonRegular(t, "serve --model", serve, func(f testfiles.File, err error) {
		if e, ok := errors.AsType[*exitError](err); !ok || e.code != 1 || !strings.Contains(e.stderr, "not a regular file") {
			t.Errorf("--model %s: %v", f.Path, err)
		}
	})
}

// exitError is a command's exit code other than 0 and what it wrote to stderr.
type exitError struct {
	code   int
	stderr string
}

func (e *exitError) Error() string { return fmt.Sprintf("exit %d, %q", e.code, e.stderr) }

// damagedMemoryDir writes a memory whose log header has a flipped version
// byte (the "unsupported memory file version 10" that stopped serve, stats
// and export) and returns it with the number of words it holds.
func damagedMemoryDir(t *testing.T) (string, int) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mem")
	o := memory.DefaultOptions()
	o.Logger = testhttp.Quiet()
	m, err := memory.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if err := m.Remember([]memory.Observation{{Word: fmt.Sprintf("zqw%d", i), Context: fmt.Sprintf("context %d of zqw%d", i, i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Sync(); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "log-*.amm"))
	data, _ := os.ReadFile(logs[0])
	m.Close() // the final snapshot replaces the log: damage the snapshot instead
	snaps, _ := filepath.Glob(filepath.Join(dir, "snapshot-*.amm"))
	if len(snaps) != 1 {
		t.Fatalf("snapshots %v (log was %d bytes)", snaps, len(data))
	}
	b, _ := os.ReadFile(snaps[0])
	b[8] ^= 8 // version 3 → 11
	os.WriteFile(snaps[0], b, 0o600)
	return dir, 30
}

// TestHostileMemoryCheckAndStats: memory check reports the damage and changes
// nothing; memory stats and export work on the damaged directory.
func TestHostileMemoryCheckAndStats(t *testing.T) {
	dir, words := damagedMemoryDir(t)
	before, _ := os.ReadDir(dir)
	code, out, stderr := runCLI(context.Background(), "memory", "check", "--memory-dir", dir)
	if code != 1 || !strings.Contains(stderr, "damaged") {
		t.Errorf("check: exit %d, %q", code, stderr)
	}
	var h struct {
		Healthy bool
		Damaged []memory.Damage
		Words   int
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatalf("check output %q: %v", out, err)
	}
	if h.Healthy || len(h.Damaged) != 1 || !strings.Contains(h.Damaged[0].Problem, "version 11") || h.Words != words {
		t.Errorf("check report %+v", h)
	}
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Errorf("check changed the directory: %v → %v", before, after)
	}
	code, out, stderr = runCLI(context.Background(), "memory", "stats", "--memory-dir", dir)
	if code != 0 || !strings.Contains(out, `"damaged"`) || !strings.Contains(out, fmt.Sprintf(`"words": %d`, words)) {
		t.Errorf("stats: exit %d, %s %s", code, out, stderr)
	}
	if code, out, _ = runCLI(context.Background(), "memory", "export", "--memory-dir", dir); code != 0 || strings.Count(out, "\n") != words {
		t.Errorf("export: exit %d, %d lines", code, strings.Count(out, "\n"))
	}
}

// TestHostileServeDamagedMemory: serve starts on the damaged directory, keeps
// every word, reports the damage in /metrics, and moves the file aside.
func TestHostileServeDamagedMemory(t *testing.T) {
	dir, words := damagedMemoryDir(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	var stderr string
	go func() {
		var code int
		code, _, stderr = runCLI(ctx, "serve", "--model", modelFile(t), "--memory-dir", dir, "--addr", addr, "--ready-delay", "0s")
		done <- code
	}()
	url := "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatalf("serve never listened: %s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	m := testhttp.Metrics(t, url)
	if !strings.Contains(m, "t2vam_memory_damaged_files 1") || !strings.Contains(m, fmt.Sprintf("t2vam_memory_words %d", words)) {
		t.Errorf("metrics:\n%s", testhttp.GrepLines(m, "t2vam_memory"))
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "damaged") {
		t.Errorf("damage not logged: %s", stderr)
	}
	moved, _ := filepath.Glob(filepath.Join(dir, "*.damaged"))
	if len(moved) != 1 {
		t.Errorf("moved aside: %v", moved)
	}
}

// TestMemoryCheckAndStatsCollections: memory stats and memory check report
// the passage counts kept per collection under collections/, and check
// finds damage there (it changes nothing).
func TestMemoryCheckAndStatsCollections(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	o := memory.DefaultOptions()
	o.Logger = testhttp.Quiet()
	shared, err := memory.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	colls := memory.NewCollections(dir, o, 4)
	for name, passages := range map[string]int{"Articles": 3, "Notes": 1} {
		c, err := colls.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		for i := range passages {
			cc := memory.CollectionCounts{Collection: c, Shared: shared}
			if err := cc.CountPassage([]string{"zqa", fmt.Sprintf("zqp%d-%s", i, name)}); err != nil { // distinct passages
				t.Fatal(err)
			}
		}
	}
	if err := errors.Join(colls.Close(), shared.Close()); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(context.Background(), "memory", "stats", "--memory-dir", dir)
	var st struct {
		Passages    int64 `json:"passages"`
		Collections map[string]struct {
			Passages int64 `json:"passages"`
			DFWords  int   `json:"df_words"`
		} `json:"collections"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("stats: exit %d %q %q", code, out, stderr)
	}
	if st.Passages != 4 || len(st.Collections) != 2 || st.Collections["Articles"].Passages != 3 ||
		st.Collections["Articles"].DFWords != 4 || st.Collections["Notes"].Passages != 1 {
		t.Errorf("stats: %s", out)
	}
	var h struct {
		Healthy bool
		Files   []struct{ Name string }
		Damaged []memory.Damage
	}
	code, out, _ = runCLI(context.Background(), "memory", "check", "--memory-dir", dir)
	if code != 0 || json.Unmarshal([]byte(out), &h) != nil || !h.Healthy || !strings.Contains(out, `"collections"`) ||
		!strings.Contains(out, filepath.Join("collections", "Notes", "snapshot-")) {
		t.Fatalf("check of a healthy memory: exit %d %s", code, out)
	}

	// Damage the snapshot of one collection: check says so, naming the file.
	snaps, _ := filepath.Glob(filepath.Join(dir, "collections", "Notes", "snapshot-*.amm"))
	if len(snaps) != 1 {
		t.Fatalf("snapshots of Notes: %v", snaps)
	}
	b, _ := os.ReadFile(snaps[0])
	b[8] ^= 8
	os.WriteFile(snaps[0], b, 0o600)
	before, _ := os.ReadFile(snaps[0])
	code, out, stderr = runCLI(context.Background(), "memory", "check", "--memory-dir", dir)
	h.Damaged = nil
	if code != 1 || json.Unmarshal([]byte(out), &h) != nil || h.Healthy || len(h.Damaged) != 1 ||
		h.Damaged[0].File != filepath.Join("collections", "Notes", filepath.Base(snaps[0])) || !strings.Contains(stderr, "damaged") {
		t.Errorf("check of a damaged collection: exit %d %s %s", code, out, stderr)
	}
	if after, _ := os.ReadFile(snaps[0]); string(after) != string(before) {
		t.Error("check changed the damaged file")
	}
}

// TestMemoryCheckUnreadableCollections: a collections/ that is a regular
// file, or a collection directory that cannot be read, makes memory check
// report the memory unhealthy (exit 1, naming the path) and memory stats
// print what it can read, list the problem and exit 1; neither aborts
// without a report.
func TestMemoryCheckUnreadableCollections(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	o := memory.DefaultOptions()
	o.Logger = testhttp.Quiet()
	shared, err := memory.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := shared.Close(); err != nil {
		t.Fatal(err)
	}
	collections := filepath.Join(dir, "collections")
	// A directory where a log file should be: the collection's memory sets
	// it aside as damage, which check reports (exit 1) and stats lists.
	bad := filepath.Join(collections, "Books")
	if err := os.MkdirAll(filepath.Join(bad, "log-0000000000000001.amm"), 0o700); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(context.Background(), "memory", "check", "--memory-dir", dir)
	if code != 1 || !strings.Contains(out, "collections/Books/log-0000000000000001.amm") || !strings.Contains(out, "not a regular file") {
		t.Errorf("a directory named like a collection's log: check exit %d, %s", code, out)
	}
	code, out, _ = runCLI(context.Background(), "memory", "stats", "--memory-dir", dir)
	if code != 0 || !strings.Contains(out, "not a regular file") {
		t.Errorf("a directory named like a collection's log: stats exit %d, %s", code, out)
	}
	for _, c := range []struct{ what, path string }{{"collections/ a regular file", collections}} {
		if c.path == collections {
			if err := os.RemoveAll(collections); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(collections, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		var h struct {
			Healthy  bool
			Problems []string `json:"collection_problems"`
		}
		code, out, stderr := runCLI(context.Background(), "memory", "check", "--memory-dir", dir)
		if code != 1 || json.Unmarshal([]byte(out), &h) != nil || h.Healthy || len(h.Problems) != 1 ||
			!strings.Contains(h.Problems[0], c.path) || !strings.Contains(stderr, c.path) {
			t.Errorf("%s: check exit %d, %s, stderr %q; want 1, unhealthy, naming %s", c.what, code, out, stderr, c.path)
		}
		var st struct {
			Passages int64    `json:"passages"`
			Problems []string `json:"collection_problems"`
		}
		code, out, stderr = runCLI(context.Background(), "memory", "stats", "--memory-dir", dir)
		if code != 1 || json.Unmarshal([]byte(out), &st) != nil || len(st.Problems) != 1 ||
			!strings.Contains(st.Problems[0], c.path) || !strings.Contains(stderr, c.path) {
			t.Errorf("%s: stats exit %d, %s, stderr %q; want 1, the stats printed, listing the problem", c.what, code, out, stderr)
		}
	}
}

// TestHostileServeOddFiles: serve refuses a FIFO as --model or as
// --auth-token-file without blocking, and starts beside a FIFO named like a
// log in --memory-dir, naming it in an error, then stops on cancel.
func TestHostileServeOddFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, flag := range []string{"--model", "--auth-token-file"} {
		code, _, stderr := runCLI(context.Background(), "serve", "--addr", "127.0.0.1:0", flag, fifo)
		if code != 1 || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("%s FIFO: exit %d, %q", flag, code, stderr)
		}
	}
	mem := filepath.Join(dir, "mem")
	if err := os.MkdirAll(mem, 0o700); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(mem, "log-00000000000000ff.amm")
	if err := syscall.Mkfifo(log, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, "text2vec-am", command.Commands(), []string{"serve", "--addr", "127.0.0.1:0", "--memory-dir", mem}, &out, &errb)
	}()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(errb.String(), "moved aside") {
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, errb.String())
		case <-deadline:
			cancel()
			t.Fatalf("serve never set the FIFO aside: %s", errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if code := <-done; code != 0 || !strings.Contains(errb.String(), "not a regular file") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	if _, err := os.Lstat(log + ".damaged"); err != nil {
		t.Errorf("FIFO not moved aside: %v", err)
	}
}

// TestMemoryCheckDamagedModelRecord: memory check reports an empty
// model.json (a crash before its data reached the disk) as damaged, naming
// it, and leaves it for the next writer's claim to replace.
func TestMemoryCheckDamagedModelRecord(t *testing.T) {
	dir := t.TempDir()
	mo := memory.DefaultOptions()
	mo.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	mem, err := memory.Open(dir, mo)
	if err != nil {
		t.Fatal(err)
	}
	mem.Close()
	if err := os.WriteFile(filepath.Join(dir, "model.json"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(context.Background(), "memory", "check", "--memory-dir", dir)
	var h struct {
		Healthy bool
		Damaged []memory.Damage
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatalf("check output %q: %v", out, err)
	}
	if code != 1 || h.Healthy || len(h.Damaged) != 1 || h.Damaged[0].File != "model.json" {
		t.Errorf("check: exit %d, report %+v, %s", code, h, stderr)
	}
}
