//go:build unix

package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/text2vec-am/text2vec-am/internal/shareddata"
	"github.com/text2vec-am/text2vec-am/module/buildweaviate"
)

// repoRoot is the directory holding go.mod (shareddata.RepoRoot).
func repoRoot(t testing.TB) string { return shareddata.RepoRoot(t) }

// e2eEnv is what every end-to-end test needs: the repository root and the
// debian-dev retrieval data.
type e2eEnv struct {
	repo    string
	docs    string // docs.jsonl
	queries string // queries.jsonl
}

// requireE2E skips the test under -short or when ../shared is absent.
func requireE2E(t testing.TB) e2eEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test against real Weaviate servers: skipped under -short")
	}
	repo := repoRoot(t)
	dir := filepath.Join(filepath.Dir(repo), "shared", "data", "retrieval", "debian-dev")
	e := e2eEnv{repo: repo, docs: filepath.Join(dir, "docs.jsonl"), queries: filepath.Join(dir, "queries.jsonl")}
	for _, p := range []string{e.docs, e.queries} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("end-to-end test needs the debian-dev retrieval data at %s (../shared beside the repository root): %v", p, err)
		}
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("end-to-end test builds Weaviate and needs the go command: %v", err)
	}
	return e
}

// cacheDir is where built binaries are kept between runs.
func cacheDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("T2V_E2E_CACHE")
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir() // no $HOME: cache in the temporary directory
		}
		dir = filepath.Join(base, "text2vec-am", "e2e")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("create e2e cache %s: %v", dir, err)
	}
	return dir
}

// lockCache takes an exclusive lock on the cache directory so that two test
// processes do not build the same binary at once. The returned function
// releases it.
func lockCache(t testing.TB, dir string) func() {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatalf("lock e2e cache: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("lock e2e cache: %v", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}

// sourceHash hashes the files the text2vec-am binary and module are built
// from: everything under repo except .git, tests/, test files and Markdown.
func sourceHash(t testing.TB, repo string) string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || rel == "tests" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, ".md") {
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatalf("hash sources: %v", err)
	}
	sort.Strings(files)
	h := sha256.New()
	for _, rel := range files {
		f, err := os.Open(filepath.Join(repo, rel))
		if err != nil {
			t.Fatalf("hash sources: %v", err)
		}
		fmt.Fprintf(h, "%s\x00", rel)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			t.Fatalf("hash sources: %v", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// builtOnce builds one binary once per test process.
type builtOnce struct {
	once sync.Once
	path string
	err  error
}

// get returns the binary, building it with build on first use.
func (b *builtOnce) get(t testing.TB, build func() (string, error)) string {
	t.Helper()
	b.once.Do(func() { b.path, b.err = build() })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// The binaries of this test process (the test binary is their only user).
var stockBin, customBin, text2vecAMBin builtOnce

// stockServer returns the stock weaviate-server, built by go install into the
// cache on first use.
func stockServer(t testing.TB) string {
	return stockBin.get(t, func() (string, error) {
		dir := cacheDir(t)
		defer lockCache(t, dir)()
		out := filepath.Join(dir, "weaviate-server-"+buildweaviate.WeaviateVersion)
		if _, err := os.Stat(out); err == nil {
			return out, nil
		}
		start := time.Now()
		t.Logf("building stock weaviate-server %s into %s (minutes when the Go build cache is cold)", buildweaviate.WeaviateVersion, dir)
		gobin := filepath.Join(dir, "gobin")
		cmd := exec.Command("go", "install", "github.com/weaviate/weaviate/cmd/weaviate-server@"+buildweaviate.WeaviateVersion)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=-mod=mod", "GOWORK=off")
		if outb, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go install weaviate-server %s: %v\n%s", buildweaviate.WeaviateVersion, err, tailString(string(outb), 4000))
		}
		if err := os.Rename(filepath.Join(gobin, "weaviate-server"), out); err != nil {
			return "", fmt.Errorf("stock weaviate-server: %w", err)
		}
		t.Logf("stock weaviate-server built in %v", time.Since(start).Round(time.Second))
		return out, nil
	})
}

// customServer returns the weaviate-server with text2vec-am, built by
// build-weaviate on first use and cached by a hash of the repository's sources.
func customServer(t testing.TB, repo string) string {
	return customBin.get(t, func() (string, error) {
		dir := cacheDir(t)
		defer lockCache(t, dir)()
		prefix := "weaviate-server-" + buildweaviate.WeaviateVersion + "-am-"
		out := filepath.Join(dir, prefix+sourceHash(t, repo))
		if _, err := os.Stat(out); err == nil {
			return out, nil
		}
		start := time.Now()
		t.Logf("building weaviate-server %s with text2vec-am into %s (minutes when the Go build cache is cold)", buildweaviate.WeaviateVersion, out)
		var log bytes.Buffer
		err := buildweaviate.Build(context.Background(), buildweaviate.Options{
			Out:     out + ".tmp",
			Repo:    repo,
			WorkDir: filepath.Join(dir, "weaviate-src"), // a stable path lets the build cache reuse Weaviate's packages
			Log:     &log,
		})
		if err != nil {
			return "", fmt.Errorf("build-weaviate: %w", err)
		}
		if err := os.Rename(out+".tmp", out); err != nil {
			return "", fmt.Errorf("custom weaviate-server: %w", err)
		}
		t.Logf("custom weaviate-server built in %v", time.Since(start).Round(time.Second))
		removeStale(dir, prefix, out)
		return out, nil
	})
}

// text2vecAM returns the text2vec-am binary built from repo.
func text2vecAM(t testing.TB, repo string) string {
	return text2vecAMBin.get(t, func() (string, error) {
		dir := cacheDir(t)
		defer lockCache(t, dir)()
		out := filepath.Join(dir, "text2vec-am-"+sourceHash(t, repo))
		if _, err := os.Stat(out); err == nil {
			return out, nil
		}
		cmd := exec.Command("go", "build", "-o", out+".tmp", ".")
		cmd.Dir = repo
		if outb, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build text2vec-am: %v\n%s", err, tailString(string(outb), 4000))
		}
		if err := os.Rename(out+".tmp", out); err != nil {
			return "", fmt.Errorf("text2vec-am binary: %w", err)
		}
		removeStale(dir, "text2vec-am-", out)
		return out, nil
	})
}

// staleAfter is how old a cached binary of another source tree must be
// before a build removes it: several checkouts (worktrees) share the cache,
// and a test run of one may still be starting servers from its binary.
const staleAfter = 6 * time.Hour

// removeStale deletes the cached binaries named prefix* other than keep that
// were built more than staleAfter ago.
func removeStale(dir, prefix, keep string) {
	matches, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
	for _, m := range matches {
		if st, err := os.Stat(m); m != keep && err == nil && time.Since(st.ModTime()) > staleAfter {
			os.Remove(m)
		}
	}
}

func tailString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// process is a server started by a test, in its own process group.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	logFile *os.File
	logFrom int64 // the log's size when the process started: where its own output begins
	done    chan struct{}
	waitErr error
	stopped bool
}

// startProcess starts bin with args and env (added to the test's own
// environment) in a new process group, its output going to logPath. The
// process is stopped when owner (the top-level test, which may outlive t,
// a subtest that restarts the process) ends.
func startProcess(t, owner testing.TB, name, bin string, args, env []string, logPath string) *process {
	t.Helper()
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatalf("%s log: %v", name, err)
	}
	logFrom, _ := lf.Seek(0, io.SeekEnd)
	fmt.Fprintf(lf, "=== %s start %s %s\n", time.Now().Format(time.RFC3339), bin, strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = lf
	cmd.Stderr = lf
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		lf.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, logFile: lf, logFrom: logFrom, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	owner.Cleanup(func() {
		p.stop(owner)
		if owner.Failed() {
			// short: a failing test's own errors must stay in view in CI's excerpt of the output
			owner.Logf("%s log (%s, kept whole in %s), last lines:\n%s", name, logPath, keepLog(owner, logPath),
				p.logTail(failedTestTail))
			if c := p.crash(crashExcerpt, failedTestTail); c != "" {
				owner.Logf("%s panicked; its log from the panic on:\n%s", name, c)
			}
		}
	})
	return p
}

// keepLog copies the log at path into the e2e cache (failed-logs/<test>/,
// replacing an earlier run's) so that it outlives the test's temporary
// directory, and returns where; on failure it says why instead.
func keepLog(t testing.TB, path string) string {
	dir := filepath.Join(cacheDir(t), "failed-logs", strings.ReplaceAll(t.Name(), "/", "_"))
	dst := filepath.Join(dir, filepath.Base(filepath.Dir(path))+"-"+filepath.Base(path))
	data, err := os.ReadFile(path)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(dst, data, 0o644)
	}
	if err != nil {
		return fmt.Sprintf("nowhere: %v", err)
	}
	return dst
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the process group.
func (p *process) signal(sig syscall.Signal) {
	if !p.exited() {
		syscall.Kill(-p.cmd.Process.Pid, sig)
	}
}

// stop ends the process group: SIGTERM, then SIGKILL after 60 s. It is
// idempotent.
func (p *process) stop(t testing.TB) {
	if p.stopped {
		return
	}
	p.stopped = true
	p.signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		t.Logf("%s did not stop within 60 s of SIGTERM: killing it", p.name)
		p.signal(syscall.SIGKILL)
		<-p.done
	}
	// Children left in the group (none expected) go too.
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	p.logFile.Close()
}

// kill ends the process group at once, as a crash would.
func (p *process) kill() {
	if p.stopped {
		return
	}
	p.stopped = true
	p.signal(syscall.SIGKILL)
	<-p.done
	p.logFile.Close()
}

// What of a process's log is shown (bytes): its end when it fails to start
// and after a test that failed, and from its crash on after a test that
// failed.
const (
	startTail      = 6000
	failedTestTail = 1200
	crashExcerpt   = 3000
)

// logTail returns the last n bytes of the process's log.
func (p *process) logTail(n int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	return tailString(string(data), n)
}

// waitHTTP polls url until it answers 2xx, the process exits or timeout passes.
func waitHTTP(t testing.TB, p *process, url string, timeout time.Duration) {
	t.Helper()
	if err := pollHTTP(p, url, timeout); err != nil {
		t.Fatal(err)
	}
}

// pollHTTP waits until url answers 2xx; the error names the process, why it
// gave up and the end of its log.
func pollHTTP(p *process, url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		resp, err := client.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return nil
			}
		}
		if p.exited() {
			return fmt.Errorf("%s exited before it was ready (%v); log:\n%s", p.name, p.waitErr, p.logTail(startTail))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready at %s within %v (last error %v); log:\n%s", p.name, url, timeout, err, p.logTail(startTail))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// weaviatePorts are the ports one Weaviate instance listens on.
type weaviatePorts struct {
	HTTP, GRPC, Gossip, Data, Raft, RaftRPC, Profiling int
}

func newWeaviatePorts(t testing.TB) weaviatePorts {
	p := freePorts(t, 7)
	return weaviatePorts{HTTP: p[0], GRPC: p[1], Gossip: p[2], Data: p[3], Raft: p[4], RaftRPC: p[5], Profiling: p[6]}
}

// weaviateServer is one running Weaviate instance.
type weaviateServer struct {
	owner                 testing.TB // the test that stops the server at its end
	bin, dataDir, logPath string
	ports                 weaviatePorts
	env                   []string
	proc                  *process
}

// startWeaviate starts bin on free loopback ports with data in dataDir and
// the extra environment env, and waits until it is ready.
func startWeaviate(t testing.TB, bin, dataDir, logPath string, ports weaviatePorts, env []string) *weaviateServer {
	t.Helper()
	w := &weaviateServer{owner: t, bin: bin, dataDir: dataDir, logPath: logPath, ports: ports, env: env}
	w.start(t)
	return w
}

func (w *weaviateServer) start(t testing.TB) {
	t.Helper()
	w.launch(t)
	w.waitReady(t)
}

// waitReady waits until the server answers ready.
func (w *weaviateServer) waitReady(t testing.TB) {
	t.Helper()
	waitHTTP(t, w.proc, w.url("/v1/.well-known/ready"), 3*time.Minute)
}

// launch starts the process without waiting for it to be ready (the nodes
// of a cluster are ready only once all of them run).
func (w *weaviateServer) launch(t testing.TB) {
	t.Helper()
	env := append([]string{
		"PERSISTENCE_DATA_PATH=" + w.dataDir,
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true",
		"DEFAULT_VECTORIZER_MODULE=none",
		"CLUSTER_HOSTNAME=node1",
		"CLUSTER_BIND_ADDR=127.0.0.1",
		"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		"CLUSTER_GOSSIP_BIND_PORT=" + strconv.Itoa(w.ports.Gossip),
		"CLUSTER_DATA_BIND_PORT=" + strconv.Itoa(w.ports.Data),
		"RAFT_PORT=" + strconv.Itoa(w.ports.Raft),
		"RAFT_INTERNAL_RPC_PORT=" + strconv.Itoa(w.ports.RaftRPC),
		"RAFT_BOOTSTRAP_EXPECT=1",
		"GRPC_PORT=" + strconv.Itoa(w.ports.GRPC),
		"GO_PROFILING_PORT=" + strconv.Itoa(w.ports.Profiling),
		"GO_PROFILING_DISABLE=true",
		"DISABLE_TELEMETRY=true",
		"LOG_LEVEL=info",
		"QUERY_DEFAULTS_LIMIT=25",
	}, w.env...)
	w.proc = startProcess(t, w.owner, "weaviate-server", w.bin,
		[]string{"--host", "127.0.0.1", "--port", strconv.Itoa(w.ports.HTTP), "--scheme", "http"},
		env, w.logPath)
}

// restart stops the server and starts it again on the same ports and data.
func (w *weaviateServer) restart(t testing.TB) {
	t.Helper()
	w.proc.stop(t)
	w.start(t)
}

func (w *weaviateServer) url(path string) string {
	return "http://127.0.0.1:" + strconv.Itoa(w.ports.HTTP) + path
}

// adapterServer is one running text2vec-am adapter (serve).
type adapterServer struct {
	owner        testing.TB // the test that stops the server at its end
	bin, logPath string
	port         int
	args         []string
	proc         *process
}

func startAdapter(t testing.TB, bin, logPath string, port int, args []string) *adapterServer {
	t.Helper()
	a := &adapterServer{owner: t, bin: bin, logPath: logPath, port: port, args: args}
	a.start(t)
	return a
}

func (a *adapterServer) start(t testing.TB) {
	t.Helper()
	args := append([]string{"serve", "--addr", "127.0.0.1:" + strconv.Itoa(a.port)}, a.args...)
	a.proc = startProcess(t, a.owner, "text2vec-am serve", a.bin, args, nil, a.logPath)
	waitHTTP(t, a.proc, a.url("/.well-known/ready"), 2*time.Minute)
}

func (a *adapterServer) url(path string) string {
	return "http://127.0.0.1:" + strconv.Itoa(a.port) + path
}

// crash returns n bytes (then "…") of this process's output in its log
// from the first line a Go program writes when it crashes ("panic: " or
// "fatal error: " at a line's start), or "" when it has none or the crash is
// within the last tail bytes of the log, shown already: the cause of a crash
// is at the top of the dump of goroutines that follows, far from the log's
// end. A log appended to by earlier runs of the process is read from this
// run's start.
func (p *process) crash(n, tail int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil || int64(len(data)) < p.logFrom {
		return ""
	}
	own := string(data[p.logFrom:])
	c := crashString(own, n)
	if c == "" || len(own)-strings.Index(own, strings.TrimSuffix(c, "…")) <= tail {
		return ""
	}
	return c
}

// crashString returns n bytes (then "…", cut at a character's start) of log
// from its first line that starts with "panic: " or "fatal error: " or that
// holds "http: panic serving " (a handler's panic that net/http recovered,
// after the log's time stamp: the server went on), or "" when no line does.
func crashString(log string, n int) string {
	at := -1
	for _, mark := range []string{"panic: ", "fatal error: "} {
		i := -1
		if strings.HasPrefix(log, mark) {
			i = 0
		} else if j := strings.Index(log, "\n"+mark); j >= 0 {
			i = j + 1
		}
		if i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if j := strings.Index(log, "http: panic serving "); j >= 0 {
		if i := strings.LastIndex(log[:j], "\n") + 1; at < 0 || i < at {
			at = i
		}
	}
	if at < 0 {
		return ""
	}
	s := log[at:]
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}

// TestCrashString: a failed test shows a crashed server's panic, which a
// dump of goroutines pushes out of the log's last lines, and nothing for a
// log without one.
func TestCrashString(t *testing.T) {
	dump := strings.Repeat("goroutine 7 [select]:\nmain.loop()\n", 200)
	for _, c := range []struct{ log, want string }{
		{"started\nserving\n", ""},
		{"started\nmsg=\"recovered panic: x\"\n", ""},
		{"started\npanic: assignment to entry in nil map\n\n" + dump,
			"panic: assignment to entry in nil map\n\ngoroutine 7"},
		{"fatal error: concurrent map writes\n" + dump, "fatal error: concurrent map writes\n"},
		{"a\nfatal error: out of memory\nb\npanic: later\n", "fatal error: out of memory\nb\npanic: later\n"},
		{"a\npanic: first\nb\nfatal error: later\n", "panic: first\nb\nfatal error: later\n"},
		{"a\n2026/12/05 23:31:50 http: panic serving 127.0.0.1:5: boom\ngoroutine 9 [running]:\n" + dump,
			"2026/12/05 23:31:50 http: panic serving 127.0.0.1:5: boom\n"},
		{"http: panic serving 127.0.0.1:5: boom\n", "http: panic serving 127.0.0.1:5: boom\n"},
		{"panic: " + strings.Repeat("é", 40), "panic: éé"},
	} {
		got := crashString(c.log, 60)
		cut := strings.TrimSuffix(got, "…")
		if !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") || len(cut) > 60 || !utf8.ValidString(got) {
			t.Errorf("crashString(%.40q…) = %q, want it to start with %q: at most 60 whole bytes", c.log, got, c.want)
		}
	}
}

// TestProcessCrash: a process's crash is looked for in its own run's part of
// a log that earlier runs appended to, and not shown again when the log's
// last lines hold it.
func TestProcessCrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "node.log")
	earlier := "=== start\npanic: an earlier run\n" + strings.Repeat("goroutine 1 [running]:\n", 100)
	dump := strings.Repeat("goroutine 9 [select]:\n", 100)
	for _, c := range []struct{ own, want string }{
		{"=== start\nserving\n", ""},
		{"=== start\npanic: this run\n" + dump, "panic: this run\n"},
		{"=== start\npanic: this run\n", ""}, // in the last lines shown
	} {
		if err := os.WriteFile(path, []byte(earlier+c.own), 0o644); err != nil {
			t.Fatal(err)
		}
		p := &process{logPath: path, logFrom: int64(len(earlier))}
		got := p.crash(200, 100)
		if !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("own log %.30q…: crash %.40q, want %q", c.own, got, c.want)
		}
	}
}

// TestKeepLog: a failed test's server log is copied into the e2e cache,
// where it outlives the test's temporary directory.
func TestKeepLog(t *testing.T) {
	t.Setenv("T2V_E2E_CACHE", t.TempDir())
	path := filepath.Join(t.TempDir(), "cluster1", "node2.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("=== start\nserving\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kept := keepLog(t, path)
	if data, err := os.ReadFile(kept); err != nil || string(data) != "=== start\nserving\n" ||
		!strings.HasSuffix(kept, filepath.Join("failed-logs", "TestKeepLog", "cluster1-node2.log")) {
		t.Fatalf("kept at %q: %q, %v", kept, data, err)
	}
}
