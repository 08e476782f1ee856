//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/witness"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// composeStack is one docker-compose project of the shipped docker-compose.yml.
type composeStack struct {
	cmd     []string // "docker compose" or "docker-compose"
	repo    string
	project string
	env     []string
}

// requireDocker skips the test when no Docker engine answers and returns the
// compose command present ("docker compose" preferred, else docker-compose).
func requireDocker(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skipf("compose test needs the docker command and a running dockerd (apt-get install docker.io docker-compose; dockerd as root; .ci/run does both): %v", err)
	}
	if out, err := exec.Command("docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		t.Skipf("compose test needs a running Docker engine (start dockerd as root; .ci/run does): docker info: %v: %s", err, bytes.TrimSpace(out))
	}
	if exec.Command("docker", "compose", "version").Run() == nil {
		return []string{"docker", "compose"}
	}
	if _, err := exec.LookPath("docker-compose"); err == nil {
		return []string{"docker-compose"}
	}
	t.Fatalf("a Docker engine runs but neither \"docker compose\" nor docker-compose is installed (apt-get install docker-compose)")
	return nil
}

// run runs a compose subcommand in the repository and returns its output.
func (s *composeStack) run(t testing.TB, timeout time.Duration, args ...string) string {
	t.Helper()
	out, err := s.try(timeout, nil, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", strings.Join(s.cmd, " "), strings.Join(args, " "), err, tailString(out, 6000))
	}
	return out
}

// try runs a compose subcommand with stdin (may be nil).
func (s *composeStack) try(timeout time.Duration, stdin []byte, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	full := append(append(append([]string{}, s.cmd[1:]...), "-p", s.project), args...)
	cmd := exec.CommandContext(ctx, s.cmd[0], full...)
	cmd.Dir = s.repo
	cmd.Env = append(os.Environ(), s.env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// container returns the id of the service's container.
func (s *composeStack) container(t testing.TB, service string) string {
	t.Helper()
	id := strings.TrimSpace(s.run(t, time.Minute, "ps", "-q", service))
	if id == "" {
		t.Fatalf("compose service %s has no container", service)
	}
	return id
}

// inspect returns docker inspect's format output for the service's container.
func (s *composeStack) inspect(t testing.TB, service, format string) string {
	t.Helper()
	out, err := exec.Command("docker", "inspect", "--format", format, s.container(t, service)).CombinedOutput()
	if err != nil {
		t.Fatalf("docker inspect %s: %v: %s", service, err, out)
	}
	return strings.TrimSpace(string(out))
}

// waitHealthy waits until every service's health check reports healthy.
func (s *composeStack) waitHealthy(t testing.TB, timeout time.Duration, services ...string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for _, svc := range services {
		for {
			status := s.inspect(t, svc, "{{if .State.Health}}{{.State.Health.Status}}{{else}}no healthcheck{{end}}")
			if status == "healthy" {
				break
			}
			if status == "no healthcheck" || time.Now().After(deadline) {
				logs, _ := s.try(time.Minute, nil, "logs", "--tail", "40", svc)
				t.Fatalf("service %s is %q, not healthy, after %v; its log:\n%s", svc, status, timeout, logs)
			}
			time.Sleep(time.Second)
		}
	}
}

// TestCompose runs the shipped docker-compose.yml and Dockerfile unchanged,
// against stand-ins for the images that cannot be pulled here (built by
// scripts/compose-standins.sh, reused between runs), the way a user does:
// up --build, import through the published Weaviate port, search, refresh,
// restart, down and up.
func TestCompose(t *testing.T) {
	e := requireE2E(t)
	dc := requireDocker(t)
	r := loadReference(t, e)
	begin := time.Now()
	if out, err := exec.Command("bash", filepath.Join(e.repo, "scripts", "compose-standins.sh"), stockServer(t)).CombinedOutput(); err != nil {
		t.Fatalf("stand-in images: %v\n%s", err, tailString(string(out), 4000))
	}
	ports := freePorts(t, 2)
	s := &composeStack{cmd: dc, repo: e.repo, project: "t2vame2e" + strconv.Itoa(os.Getpid()),
		env: []string{"WEAVIATE_HTTP_PORT=" + strconv.Itoa(ports[0]), "WEAVIATE_GRPC_PORT=" + strconv.Itoa(ports[1])}}
	t.Cleanup(func() {
		if t.Failed() {
			logs, _ := s.try(time.Minute, nil, "logs", "--tail", "60")
			t.Logf("compose logs:\n%s", tailString(logs, 8000))
		}
		if out, err := s.try(5*time.Minute, nil, "down", "-v", "--remove-orphans"); err != nil {
			t.Logf("compose down: %v\n%s", err, out)
		}
	})
	up := time.Now()
	s.run(t, 20*time.Minute, "up", "-d", "--build")
	s.waitHealthy(t, 5*time.Minute, "t2v-am", "weaviate")
	t.Logf("up -d --build: both services healthy in %v (stand-ins ready in %v)", time.Since(up).Round(time.Second), up.Sub(begin).Round(time.Second))
	checkLockedDown(t, s)

	w := &weaviateServer{ports: weaviatePorts{HTTP: ports[0], GRPC: ports[1]}}
	c := newClient(t, w)
	docs := collection{w: w, c: c, class: "DocsCompose"}
	createCollection(t, w, transformersCollection(docs.class, map[string]any{"vectorizeClassName": false}))
	importAll(t, docs, r)

	// The stack's own refresh, in a one-off container on the compose network.
	out := s.run(t, 10*time.Minute, "run", "--rm", "--no-deps", "-T", "--entrypoint", "/usr/local/bin/text2vec-am", "t2v-am",
		"refresh", "--weaviate", "http://weaviate:8080", "--vectorizer", "http://t2v-am:8880", "--class", docs.class)
	t.Logf("refresh in the stack: %s", lastLine(out))
	current := composeVectors(t, s, r.docs)
	checkVectors(t, listVectors(t, w, docs.class, ""), r.docs, current)
	m := nearTextMRR(t, docs, r)
	t.Logf("nearText through the stack over %d queries: MRR@10 %.4f R@10 %.4f", len(r.queries), m.MRR10, m.Recall10)
	if m.MRR10 < r.metrics.MRR10-0.005 {
		t.Errorf("nearText MRR@10 %.4f through the stack, below the empty-memory in-process %.4f", m.MRR10, r.metrics.MRR10)
	}
	mem := composeMemory(t, s)
	checkPassagesCounted(t, mem, r.docs)

	// The same documents again through the stack's text2vec-cohere, whose
	// base URL names the server: the same vectors, and the memory, which
	// has them all, unchanged (checked by survive).
	again := collection{w: w, c: c, class: "CohereCompose"}
	createCollection(t, w, cohereCollection(again.class, "http://t2v-am:8880"))
	res, err := importDocs(context.Background(), c, again.class, r.docs, indexRange(0, 500), batchSize, nil)
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("import through text2vec-cohere: %v %v", err, res.Failures)
	}
	checkVectors(t, listVectors(t, w, again.class, ""), r.docs[:500], current[:500])

	survive := func(how string) {
		t.Helper()
		s.waitHealthy(t, 5*time.Minute, "t2v-am", "weaviate")
		if n := objectCount(t, w, docs.class); n != len(r.docs) {
			t.Errorf("after %s: %d objects, want %d", how, n, len(r.docs))
		}
		checkVectors(t, listVectors(t, w, docs.class, ""), r.docs, current)
		if got := composeMemory(t, s); !equalJSON(got, mem) {
			t.Errorf("after %s the context memory is %v, before %v", how, got, mem)
		}
		if cur := composeVectors(t, s, r.docs[:200]); !sameVectors(cur, current[:200]) {
			t.Errorf("after %s the vectorizer's vectors differ from before: the memory did not survive", how)
		}
	}
	s.run(t, 5*time.Minute, "restart")
	survive("compose restart")
	s.run(t, 5*time.Minute, "down")
	s.run(t, 10*time.Minute, "up", "-d")
	survive("compose down + up")
	checkWitness(t, w, mem)
	checkLostVolume(t, s)
	t.Logf("compose test: %d objects imported, %d vectors compared (cosine > 0.9999) after import+refresh, restart and down+up; %v in all",
		len(r.docs), len(r.docs), time.Since(begin).Round(time.Second))
}

// checkWitness checks that the stack's Weaviate witnesses the memory: the
// passage count it recorded is the memory's.
func checkWitness(t *testing.T, w *weaviateServer, mem map[string]any) {
	t.Helper()
	var obj struct {
		Properties struct {
			Passages float64 `json:"passages"`
		} `json:"properties"`
	}
	u := w.url("/v1/objects/" + witness.Class + "/" + witness.ID(witness.DefaultName))
	status, raw, err := doJSON(context.Background(), http.MethodGet, u, nil, &obj)
	if err != nil || status != http.StatusOK || obj.Properties.Passages != mem["passages"] {
		t.Errorf("the memory's witness in Weaviate: %d %v %.300s; want %v passages", status, err, raw, mem["passages"])
		return
	}
	t.Logf("the memory's witness in Weaviate recorded %v passages, as the memory holds", obj.Properties.Passages)
}

// checkLostVolume re-creates the server's memory volume empty, as an
// operator who lost it would, and checks that the server refuses the empty
// memory: not ready, with the counts, and its log says so.
func checkLostVolume(t *testing.T, s *composeStack) {
	t.Helper()
	s.run(t, 5*time.Minute, "rm", "-s", "-f", "t2v-am")
	if out, err := exec.Command("docker", "volume", "rm", s.project+"_t2v_memory").CombinedOutput(); err != nil {
		t.Fatalf("docker volume rm: %v: %s", err, out)
	}
	s.run(t, 5*time.Minute, "up", "-d", "--no-deps", "t2v-am")
	var out string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		out, _ = s.try(time.Minute, nil, "exec", "-T", "t2v-am", "/usr/local/bin/text2vec-am", "healthcheck")
		if strings.Contains(out, "holds 0 passages") || time.Now().After(deadline) {
			break
		}
	}
	logs, _ := s.try(time.Minute, nil, "logs", "t2v-am")
	if !strings.Contains(out, "status 503") || !strings.Contains(out, "holds 0 passages") ||
		!strings.Contains(logs, "context memory refused") {
		t.Errorf("the server on an empty memory volume: healthcheck %q; log:\n%s", out, tailString(logs, 3000))
		return
	}
	t.Logf("on an empty memory volume the server refuses: %s", lastLine(out))
}

// checkLockedDown checks the text2vec-am service: no port published on the
// host, a non-root user, a read-only root file system, no capabilities.
func checkLockedDown(t *testing.T, s *composeStack) {
	t.Helper()
	if b := s.inspect(t, "t2v-am", "{{json .HostConfig.PortBindings}}"); b != "{}" && b != "null" {
		t.Errorf("t2v-am publishes ports on the host: %s", b)
	}
	if out, err := s.try(time.Minute, nil, "port", "t2v-am", "8880"); err == nil && strings.TrimSpace(out) != "" && !strings.HasSuffix(strings.TrimSpace(out), ":0") {
		t.Errorf("compose port t2v-am 8880 = %q: reachable from the host", out)
	}
	if ro := s.inspect(t, "t2v-am", "{{.HostConfig.ReadonlyRootfs}}"); ro != "true" {
		t.Errorf("t2v-am root file system read-only = %s", ro)
	}
	top, err := exec.Command("docker", "top", s.container(t, "t2v-am"), "-o", "pid,uid,args").CombinedOutput()
	if err != nil {
		t.Fatalf("docker top t2v-am: %v: %s", err, top)
	}
	lines := strings.Split(strings.TrimSpace(string(top)), "\n")
	for _, l := range lines[1:] {
		if f := strings.Fields(l); len(f) > 1 && f[1] == "0" {
			t.Errorf("t2v-am runs a process as root: %s", l)
		}
	}
	t.Logf("t2v-am: no published port, read-only root, processes: %s", strings.Join(lines[1:], "; "))
	// Writing outside the volume fails; writing the memory volume works (it holds the memory).
	out, err := s.try(time.Minute, nil, "exec", "-T", "t2v-am", "/usr/local/bin/text2vec-am", "memory", "warm", "--memory-dir", "/probe", "/proc/version")
	if err == nil || !strings.Contains(out, "read-only file system") {
		t.Errorf("t2v-am creating /probe on its root file system: %v, %s; want a read-only file system error", err, out)
	}
}

// composeVectors asks the stack's text2vec-am server, from a one-off
// container on the compose network (the server has no host port), for the
// current vector of every document (as queries: nothing is taught).
func composeVectors(t testing.TB, s *composeStack, docs []dataset.Document) [][]float32 {
	t.Helper()
	dir := t.TempDir()
	const per = 1000
	var files []string
	for lo := 0; lo < len(docs); lo += per {
		texts := make([]string, 0, per)
		for _, d := range docs[lo:min(lo+per, len(docs))] {
			texts = append(texts, d.Text)
		}
		data, _ := json.Marshal(map[string]any{"texts": texts, "config": map[string]any{"task_type": "query"}})
		name := fmt.Sprintf("req-%04d", len(files))
		if err := os.WriteFile(filepath.Join(dir, name+".json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	// The Weaviate image has sh and wget (the real one: busybox's).
	script := `for f in /io/req-*.json; do wget -q -O "${f%.json}.out" --header='Content-Type: application/json' --post-file="$f" http://t2v-am:8880/vectors/batch || exit 1; done`
	s.run(t, 10*time.Minute, "run", "--rm", "--no-deps", "-T", "-v", dir+":/io", "--entrypoint", "sh", "weaviate", "-c", script)
	out := make([][]float32, 0, len(docs))
	for _, name := range files {
		var ans struct {
			Vectors [][]float32 `json:"vectors"`
		}
		data, err := os.ReadFile(filepath.Join(dir, name+".out"))
		if err == nil {
			err = json.Unmarshal(data, &ans)
		}
		if err != nil {
			t.Fatalf("vectors from the stack's server (%s): %v", name, err)
		}
		out = append(out, ans.Vectors...)
	}
	if len(out) != len(docs) {
		t.Fatalf("%d vectors from the stack's server for %d documents", len(out), len(docs))
	}
	return out
}

// composeMemory reads the context memory's summary with "memory stats" in
// the running text2vec-am container.
func composeMemory(t testing.TB, s *composeStack) map[string]any {
	t.Helper()
	out := s.run(t, time.Minute, "exec", "-T", "t2v-am", "/usr/local/bin/text2vec-am", "memory", "stats", "--memory-dir", "/data/memory")
	var m map[string]any
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &m); err != nil {
		t.Fatalf("memory stats in the t2v-am container: %v: %s", err, out)
	}
	summary := map[string]any{}
	for _, k := range []string{"words", "contexts", "passages"} {
		summary[k] = m[k]
	}
	return summary
}

func sameVectors(a, b [][]float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if cosine(a[i], b[i]) <= 0.9999 {
			return false
		}
	}
	return true
}
