package command_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/command"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/shareddata"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func modelFile(t testing.TB) string {
	t.Helper()
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "test.am")
	if err := m.SaveFile(path, model.SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	return path
}

func runCLI(ctx context.Context, args ...string) (int, string, string) {
	var out, errb syncBuffer
	code := cli.Main(ctx, "text2vec-am", command.Commands(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// checkText fails t unless text, named what, holds every string of want and
// none of without.
func checkText(t *testing.T, what, text string, want, without []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
	for _, w := range without {
		if strings.Contains(text, w) {
			t.Errorf("%s has %q:\n%s", what, w, text)
		}
	}
}

func TestServeFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--memory", "maybe"}, "--memory"},
		{[]string{"serve", "--weighting", "max"}, "weighting"},
		{[]string{"serve", "--rare-min", "50"}, "--frequent-min"}, // each surface spells the setting its own way
		{[]string{"serve", "--max-concurrent", "0"}, "--max-concurrent"},
		{[]string{"serve", "--memory-sync", "sometimes"}, "--memory-sync"},
		{[]string{"serve", "--memory-max-contexts", "0"}, "MaxContexts"},
		{[]string{"serve", "--log-level", "loud"}, "--log-level"},
		{[]string{"serve", "extra"}, "unexpected arguments"},
		{[]string{"serve", "--memory-weaviate", "http://w:8080", "--memory-dir", "/tmp/x"}, "--memory-dir are both given"},
		{[]string{"serve", "--memory-weaviate", "ftp://admin:s3cr3t@w"}, "--memory-weaviate: memory kept in Weaviate: URL \"ftp://admin:xxxxx@w\""},
		{[]string{"serve", "--memory-weaviate", "http://w:8080", "--memory-weaviate-class", "lower"}, "--memory-weaviate-class: "},
		{[]string{"serve", "--memory-weaviate", "http://w:8080", "--memory-weaviate-replicas", "-1"}, "--memory-weaviate-replicas -1: want 0"},
		{[]string{"serve", "--memory-weaviate", "http://w:8080", "--memory-weaviate-replicas", "65"}, "--memory-weaviate-replicas: "},
		{[]string{"serve", "--memory-weaviate", "http://w:8080", "--memory-weaviate-refresh", "0s"}, "--memory-weaviate-refresh"},
		{[]string{"serve", "--memory-weaviate", "http://w:8080", "--memory-weaviate-max-bytes", "0"}, "--memory-weaviate-max-bytes 0: want ≥ 1048576 (1 MiB)"},
		{[]string{"serve", "--memory-weaviate", "http://w:8080", "--memory-weaviate-max-bytes", "1000"}, "--memory-weaviate-max-bytes 1000: want ≥ 1048576 (1 MiB)"},
		{[]string{"serve", "--memory-witness", "http://w:8080"}, "--memory-witness needs --memory-dir"},
		{[]string{"serve", "--memory-witness", "http://w:8080", "--memory-weaviate", "http://w:8080"}, "--memory-witness needs --memory-dir"},
		{[]string{"serve", "--memory-witness", "http://admin:s3cr3t@w", "--memory-dir", "/tmp/x"}, "without credentials"},
		{[]string{"serve", "--memory-witness", "http://w:8080", "--memory-dir", "/tmp/x", "--weighting", "sif"}, "needs --weighting sif-collection"},
		{[]string{"serve", "--memory-witness-reset"}, "need --memory-witness"},
		{[]string{"serve", "--memory-witness-name", "a"}, "need --memory-witness"},
		{[]string{"memory"}, "subcommand"},
		{[]string{"memory", "shrink"}, "shrink"},
		{[]string{"memory", "stats"}, "--memory-dir is required"},
		{[]string{"memory", "clear", "--memory-dir", "/nonexistent"}, "--yes"},
		{[]string{"memory", "warm", "--memory-dir", "/tmp/x"}, "at least one"},
	} {
		code, _, stderr := runCLI(context.Background(), c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "s3cr3t") {
			t.Errorf("%v: exit %d, stderr %q; want 2 mentioning %s", c.args, code, stderr, c.want)
		}
	}
	code, _, stderr := runCLI(context.Background(), "serve", "--memory-weaviate", "http://w:8080",
		"--memory-weaviate-api-key-file", "/nonexistent")
	if code != 1 || !strings.Contains(stderr, "--memory-weaviate-api-key-file") {
		t.Errorf("missing API key file: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI(context.Background(), "serve", "--model", "/nonexistent.am")
	if code != 1 || !strings.Contains(stderr, "nonexistent.am") {
		t.Errorf("missing model: exit %d, %q", code, stderr)
	}
}

// startServe runs `serve` with args on a free port and returns its URL, a
// function that stops it (failing the test unless it exits cleanly) and its log.
func startServe(t *testing.T, args ...string) (string, func(), *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errb := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, "text2vec-am", command.Commands(), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...),
			&bytes.Buffer{}, errb)
	}()
	addrRe := regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == ""; time.Sleep(10 * time.Millisecond) {
		if m := addrRe.FindStringSubmatch(errb.String()); m != nil {
			addr = m[1]
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("server did not start: %s", errb.String())
		}
	}
	stop := func() {
		t.Helper()
		cancel()
		if code := <-done; code != 130 && code != 0 {
			t.Fatalf("serve exit %d: %s", code, errb.String())
		}
	}
	return "http://" + addr, stop, errb
}

// TestServeCommand runs `serve` on a free port, uses it, stops it with a
// cancelled context and checks the memory was flushed; then the memory
// subcommands on the same directory.
func TestServeCommand(t *testing.T) {
	mf := modelFile(t)
	dir := filepath.Join(t.TempDir(), "memory")
	url, stop, errb := startServe(t, "--model", mf, "--memory-dir", dir, "--memory-sync", "always")
	if code, _, _ := runCLI(context.Background(), "healthcheck", "--url", url+"/.well-known/ready"); code != 0 {
		t.Fatal("healthcheck failed")
	}
	status, _, body := testhttp.Post(t, url, "/vectors", `{"text":"Zqserve f1 f2.","config":{"task_type":"passage"}}`)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	// sif-collection is the default, and the passage was counted in the memory.
	if code, _, body := testhttp.Get(t, url+"/meta"); code != 200 || !strings.Contains(body, `"weighting":"sif-collection"`) || !strings.Contains(body, `"passages":1`) {
		t.Errorf("meta: %d %s", code, body)
	}
	if code, _, body := testhttp.Get(t, url+"/metrics"); code != 200 || !strings.Contains(body, "\nt2vam_memory_passages 1\n") ||
		!strings.Contains(body, "\nt2vam_memory_df_words 3\n") || !strings.Contains(body, "\nt2vam_memory_df_rejected_total 0\n") {
		t.Errorf("metrics: %d %s", code, body)
	}
	// stats reads the memory while the server runs.
	if code, out, stderr := runCLI(context.Background(), "memory", "stats", "--memory-dir", dir); code != 0 || !strings.Contains(out, `"words": 1,`) {
		t.Errorf("stats while serving: %d %s %s", code, out, stderr)
	}
	// While the server runs the directory is locked: clear refuses.
	if code, _, stderr := runCLI(context.Background(), "memory", "clear", "--yes", "--memory-dir", dir); code != 1 || !strings.Contains(stderr, "in use") {
		t.Errorf("clear while serving: %d %s", code, stderr)
	}
	stop()
	if !strings.Contains(errb.String(), "context memory flushed") {
		t.Errorf("no flush logged: %s", errb.String())
	}
	if code, _, _ := runCLI(context.Background(), "healthcheck", "--url", url+"/.well-known/ready", "--timeout", "200ms"); code == 0 {
		t.Error("healthcheck passed after shutdown")
	}

	corpus := filepath.Join(t.TempDir(), "corpus.txt")
	os.WriteFile(corpus, []byte("Zqwarm f3 f4.\nf9 zqwarm f5 f6. F7.\n\nzqother f1\n"), 0o600)
	code, out, stderr := runCLI(context.Background(), "memory", "warm", "--model", mf, "--memory-dir", dir, corpus)
	if code != 0 || !strings.Contains(out, "read 4 lines") {
		t.Fatalf("warm: %d %q %q", code, out, stderr)
	}
	code, out, stderr = runCLI(context.Background(), "memory", "stats", "--memory-dir", dir)
	var st struct {
		Words    int `json:"words"`
		Contexts int `json:"contexts"`
		Passages int `json:"passages"`
		DFWords  int `json:"df_words"`
	}
	// sif-collection (the default) counted the served passage and the three
	// non-blank lines of the warm-up, and the counts survived both restarts.
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Words != 3 || st.Contexts != 4 || st.Passages != 4 || st.DFWords != 11 {
		t.Fatalf("stats: %d %q %q", code, out, stderr)
	}
	code, out, _ = runCLI(context.Background(), "memory", "export", "--memory-dir", dir)
	for _, want := range []string{
		`{"word":"zqwarm","contexts":["Zqwarm f3 f4.","f9 zqwarm f5 f6."],"df":2}`,
		`{"word":"f1","contexts":[],"df":2}`, // the served passage and "zqother f1"
		`"zqserve"`,
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("export lacks %s: %d %q", want, code, out)
		}
	}
	if code, _, stderr := runCLI(context.Background(), "memory", "clear", "--yes", "--memory-dir", dir); code != 0 {
		t.Fatalf("clear: %s", stderr)
	}
	_, out, _ = runCLI(context.Background(), "memory", "stats", "--memory-dir", dir)
	if json.Unmarshal([]byte(out), &st) != nil || st.Words != 0 || st.Passages != 0 || st.DFWords != 0 {
		t.Fatalf("after clear: %s", out)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("memory dir mode %v %v", fi.Mode().Perm(), err)
	}
}

// repoRoot is the directory holding go.mod (shareddata.RepoRoot).
func repoRoot(t testing.TB) string { return shareddata.RepoRoot(t) }

// TestDockerCompose validates docker-compose.yml with docker-compose config
// and checks the properties the deployment relies on.
func TestDockerCompose(t *testing.T) {
	bin, err := exec.LookPath("docker-compose")
	if err != nil {
		t.Skip("docker-compose not installed")
	}
	root := repoRoot(t)
	cmd := exec.Command(bin, "-f", filepath.Join(root, "docker-compose.yml"), "config")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("docker-compose config: %v\n%s", err, stderr.String())
	}
	cfg := string(out)
	for _, want := range []string{
		"image: cr.weaviate.io/semitechnologies/weaviate:1.39.0",
		"TRANSFORMERS_INFERENCE_API: http://t2v-am:8880",
		"ENABLE_MODULES: text2vec-transformers",
		"condition: service_healthy",
		"t2v_memory",
		"healthcheck",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("docker-compose config lacks %q", want)
		}
	}
	// The server publishes no port: only Weaviate's section has "ports".
	t2v := cfg[strings.Index(cfg, "  t2v-am:"):]
	if next := strings.Index(t2v[1:], "\n  weaviate:"); next > 0 {
		t2v = t2v[:next+1]
	}
	if strings.Contains(t2v, "ports:") || strings.Contains(t2v, "published") {
		t.Errorf("the t2v-am service publishes a port:\n%s", t2v)
	}
	df, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FROM golang:", "distroless/static", "USER 65532", "CGO_ENABLED=0"} {
		if !strings.Contains(string(df), want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}

// TestWarmLongLine: a line longer than warm's 1 MiB buffer is taught in
// pieces but counted once, as one passage with the words of all its pieces,
// and the lines read are lines, not pieces.
func TestWarmLongLine(t *testing.T) {
	mf := modelFile(t)
	dir := filepath.Join(t.TempDir(), "memory")
	corpus := filepath.Join(t.TempDir(), "corpus.txt")
	long := "zqhead f1. " + strings.Repeat("f2 f3 f4. ", 200_000) + "zqtail f5.\n"
	// The last line fills the buffer exactly, without a line break.
	exact := "f7" + strings.Repeat(" ", 1<<20-4) + "f6"
	if err := os.WriteFile(corpus, []byte("f1 f6\n"+long+"f6\n"+exact), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(context.Background(), "memory", "warm", "--model", mf, "--memory-dir", dir, corpus)
	if code != 0 || !strings.Contains(out, "read 4 lines") || !strings.Contains(out, "over 4 passages") {
		t.Fatalf("warm: %d %q %q", code, out, stderr)
	}
	code, out, stderr = runCLI(context.Background(), "memory", "export", "--memory-dir", dir)
	for _, want := range []string{`{"word":"f1","contexts":[],"df":2}`, `{"word":"f2","contexts":[],"df":1}`,
		`"word":"zqhead"`, `"word":"zqtail"`, `{"word":"f6","contexts":[],"df":3}`,
		`{"word":"f7","contexts":[],"df":1}`} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("export lacks %s: %d %s", want, code, stderr)
		}
	}
	for _, w := range []string{"zqhead", "zqtail"} {
		if !strings.Contains(out, `"word":"`+w+`",`) {
			t.Errorf("%s not taught once", w)
		}
	}
	if strings.Contains(out, `"df":0`) || !strings.Contains(out, `"word":"zqtail","contexts":["zqtail f5."],"df":1}`) {
		t.Errorf("export: %.2000s", out)
	}
	// Words beyond --memory-max-df-words are reported.
	small := filepath.Join(t.TempDir(), "small.txt")
	os.WriteFile(small, []byte("f1 f2 f3\nf4 f1\n"), 0o600)
	code, out, stderr = runCLI(context.Background(), "memory", "warm", "--model", mf, "--memory-dir", filepath.Join(t.TempDir(), "m2"),
		"--memory-max-df-words", "2", small)
	if code != 0 || !strings.Contains(out, "document frequencies of 2 words over 2 passages") ||
		!strings.Contains(out, "2 new words were not counted (--memory-max-df-words 2 reached") {
		t.Errorf("warm with a df cap: %d %q %q", code, out, stderr)
	}
}

// warmInputs returns a model file, a memory directory not yet created and
// a corpus file holding text, for memory warm.
func warmInputs(t *testing.T, text string) (mf, dir, corpus string) {
	t.Helper()
	mf = modelFile(t)
	dir = filepath.Join(t.TempDir(), "memory")
	corpus = filepath.Join(t.TempDir(), "corpus.txt")
	if err := os.WriteFile(corpus, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return mf, dir, corpus
}

// memory warm takes its flags after the corpus files as well as before.
func TestWarmFlagsAfterFile(t *testing.T) {
	mf, dir, corpus := warmInputs(t, "zqwarm f1 f2.\nf3 zqwarm f4.\n")
	code, out, stderr := runCLI(context.Background(), "memory", "warm", corpus, "--model", mf, "--memory-dir", dir,
		"--weighting", "sif")
	if code != 0 || !strings.Contains(out, "read 2 lines") || !strings.Contains(out, "the memory holds 1 words, 2 contexts") {
		t.Fatalf("warm: %d %q %q", code, out, stderr)
	}
}

// A wrong flag name gives the error and a hint, not the whole usage.
func TestServeUnknownFlagIsShort(t *testing.T) {
	code, out, stderr := runCLI(context.Background(), "serve", "--memory-dri", "x")
	want := "text2vec-am serve: usage error: flag provided but not defined: -memory-dri (did you mean \"--memory-dir\"?)\n" +
		"run \"text2vec-am serve -h\" for its flags\n"
	if code != 2 || out != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, stderr, want)
	}
}

// TestMemorySubcommandErrorNamesIt: an error of a memory subcommand names
// it, not only the group, and says it once.
func TestMemorySubcommandErrorNamesIt(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(context.Background(), "memory", "stats", "--memory-dir", dir, "--memory-sync", "never")
	want := "text2vec-am memory stats: usage error: flag provided but not defined: -memory-sync\n" +
		"run \"text2vec-am memory stats -h\" for its flags\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	code, _, stderr = runCLI(context.Background(), "memory", "delete", "--class", "Doc")
	want = "text2vec-am memory delete: usage error: give exactly one of --memory-weaviate URL and --module-memory DIR\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}

// healthcheck refuses a --timeout that is not positive before any request.
func TestHealthcheckTimeoutMustBePositive(t *testing.T) {
	for _, d := range []string{"-1s", "0s"} {
		code, _, stderr := runCLI(context.Background(), "healthcheck", "--url", "http://127.0.0.1:1/", "--timeout", d)
		if code != 2 || !strings.Contains(stderr, "--timeout "+d+": want > 0") {
			t.Errorf("--timeout %s: exit %d, stderr %q; want 2 naming the flag", d, code, stderr)
		}
	}
}

// TestWarmDamagedGzip: a gzip file cut short fails memory warm naming the
// file and the line, and says the lines read before it are taught and kept
// (the memory holds them).
func TestWarmDamagedGzip(t *testing.T) {
	mf := modelFile(t)
	dir := filepath.Join(t.TempDir(), "memory")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	for i := range 3000 {
		fmt.Fprintf(zw, "zqw%d f1 f2 %d.\n", i, i*7919)
	}
	zw.Close()
	corpus := filepath.Join(t.TempDir(), "corpus.txt.gz")
	if err := os.WriteFile(corpus, z.Bytes()[:z.Len()*2/3], 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(context.Background(), "memory", "warm", "--model", mf, "--memory-dir", dir, corpus)
	if code == 0 || !strings.Contains(stderr, corpus+":") || !strings.Contains(stderr, "are taught and kept") {
		t.Fatalf("warm of a gzip cut short: exit %d, stderr %q; want a failure naming the file and saying what is kept",
			code, stderr)
	}
	code, out, stderr := runCLI(context.Background(), "memory", "export", "--memory-dir", dir)
	if code != 0 || !strings.Contains(out, `"word":"zqw0",`) {
		t.Errorf("the lines before the damage are not in the memory: %d %.300s %s", code, out, stderr)
	}
}

// TestWarmWithAnotherModel: a memory records the model that warmed it;
// warming it with another model warns naming both, memory stats names the
// recorded one, and a memory cleared then warmed with the other model
// records that one.
func TestWarmWithAnotherModel(t *testing.T) {
	mf, dir, corpus := warmInputs(t, "zqwarm f3 f4.\n")
	if code, _, stderr := runCLI(context.Background(), "memory", "warm", "--model", mf, "--memory-dir", dir, corpus); code != 0 ||
		strings.Contains(stderr, "another model") {
		t.Fatalf("warm: %d %s", code, stderr)
	}
	code, _, stderr := runCLI(context.Background(), "memory", "warm", "--model", "default", "--memory-dir", dir, corpus)
	checkText(t, "warm with the default model", stderr,
		[]string{"written with another model", "memory_model=\"test (vocabulary ", "model=\"text2vec-am-default (vocabulary "}, nil)
	if code != 0 {
		t.Errorf("warm with another model: exit status %d, want 0 (a warning)", code)
	}
	code, out, _ := runCLI(context.Background(), "memory", "stats", "--memory-dir", dir)
	if code != 0 || !strings.Contains(out, `"model": "test (vocabulary `) {
		t.Errorf("stats: %d %s; want the recorded model", code, out)
	}
	if code, _, stderr := runCLI(context.Background(), "memory", "clear", "--yes", "--memory-dir", dir); code != 0 {
		t.Fatalf("clear: %d %s", code, stderr)
	}
	_, _, stderr = runCLI(context.Background(), "memory", "warm", "--model", "default", "--memory-dir", dir, corpus)
	_, _, stderr2 := runCLI(context.Background(), "memory", "warm", "--model", "default", "--memory-dir", dir, corpus)
	if strings.Contains(stderr+stderr2, "another model") {
		t.Errorf("warm after clear warns: %s %s", stderr, stderr2)
	}
}

// TestWarmRefusesDevicesAndDirectories: memory warm refuses a directory and a
// device (which it would read for ever) by name before loading the model.
func TestWarmRefusesDevicesAndDirectories(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	for _, c := range []struct{ path, want string }{
		{t.TempDir(), "is a directory"},
		{"/dev/zero", "not a text file"},
	} {
		if _, err := os.Stat(c.path); err != nil {
			t.Skipf("%s: %v", c.path, err)
		}
		done := make(chan struct{})
		var code int
		var stderr string
		go func() {
			defer close(done)
			code, _, stderr = runCLI(context.Background(), "memory", "warm", "--memory-dir", dir, c.path)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("memory warm %s still runs after 10 s", c.path)
		}
		if code == 0 || !strings.Contains(stderr, c.path) || !strings.Contains(stderr, c.want) {
			t.Errorf("memory warm %s: exit %d, %q; want a refusal naming it (%q)", c.path, code, stderr, c.want)
		}
	}
}
