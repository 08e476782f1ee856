//go:build unix

package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
)

// scaleSettings are the sizes of TestMemoryAtScale, from the environment.
type scaleSettings struct {
	passages int   // T2V_SCALE_PASSAGES (default 1,000,000)
	maxBytes int64 // T2V_SCALE_MAX_BYTES: --memory-weaviate-max-bytes (default 256 MiB)
	// dirBytes and dfWords are the anchor's --memory-max-bytes and
	// --memory-max-df-words: what the copy's budget and passage counts are
	// scaled down to under maxBytes (28 % of the defaults for 256 MiB).
	dirBytes int64
	dfWords  int
	memLimit int64 // T2V_SCALE_GOMEMLIMIT, GOMEMLIMIT of both servers in bytes (default 2 × maxBytes + 512 MiB)
	batch    int   // texts a /vectors/batch request
	clients  int   // concurrent clients a server
}

func scaleFromEnv(t *testing.T) scaleSettings {
	t.Helper()
	s := scaleSettings{passages: 1_000_000, maxBytes: 256 << 20, batch: 500, clients: 4}
	for _, v := range []struct {
		name string
		dst  *int64
		min  int64
	}{
		{"T2V_SCALE_PASSAGES", nil, 1000},
		{"T2V_SCALE_MAX_BYTES", &s.maxBytes, 16 << 20},
		{"T2V_SCALE_GOMEMLIMIT", &s.memLimit, 64 << 20},
	} {
		str := os.Getenv(v.name)
		if str == "" {
			continue
		}
		n, err := strconv.ParseInt(str, 10, 64)
		if err != nil || n < v.min {
			t.Fatalf("%s=%q: want an integer ≥ %d", v.name, str, v.min)
		}
		if v.dst == nil {
			s.passages = int(n)
		} else {
			*v.dst = n
		}
	}
	// The anchor keeps what the copy keeps: the memory's default budget,
	// passage counts and hashes, scaled together to fit maxBytes.
	caps := memory.DefaultOptions()
	weaviatemem.FitCaps(&caps, s.maxBytes)
	s.dirBytes, s.dfWords = caps.MaxBytes, caps.MaxDocFreqWords
	if s.memLimit == 0 {
		s.memLimit = 2*s.maxBytes + 512<<20
	}
	return s
}

// scaleWord is the n-th synthetic rare word: "zq" and five base-26 letters,
// a word no model has seen.
func scaleWord(n int) string {
	b := []byte("zqaaaaa")
	for i := len(b) - 1; i >= 2 && n > 0; i-- {
		b[i] = byte('a' + n%26)
		n /= 26
	}
	return string(b)
}

// scaleFrequent are frequent words the rare words are embedded in.
var scaleFrequent = strings.Fields("the system package server file version update users data build support change " +
	"time new list problem default work install release source kernel network memory option bug fix report test config")

// scalePassage is the i-th passage: three sentences of eight frequent words,
// each around one rare word (scaleWord(3i), 3i+1, 3i+2) that no other
// passage holds.
func scalePassage(i int) string {
	var sb strings.Builder
	h := uint64(i)*0x9e3779b97f4a7c15 + 1
	for j := range 3 {
		for k := range 9 {
			if k == 4 {
				sb.WriteString(scaleWord(3*i + j))
			} else {
				h ^= h >> 29
				h *= 0xbf58476d1ce4e5b9
				sb.WriteString(scaleFrequent[(h>>32)%uint64(len(scaleFrequent))])
			}
			if k < 8 {
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(". ")
	}
	return strings.TrimSpace(sb.String())
}

// teachRange posts passages [lo, hi) to url's /vectors/batch as passages,
// batch texts a request, from clients concurrent clients; a 503 (busy,
// memory unavailable) is resent.
func teachRange(ctx context.Context, url string, lo, hi, batch, clients int) error {
	starts := make(chan int)
	errc := make(chan error, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range starts {
				if err := teachBatch(ctx, url, s, min(s+batch, hi)); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	go func() {
		defer close(starts)
		for s := lo; s < hi; s += batch {
			select {
			case starts <- s:
			case <-ctx.Done():
				return
			}
		}
	}()
	wg.Wait()
	close(errc)
	return <-errc
}

// teachBatch posts passages [lo, hi) in one request, resending it on 503.
func teachBatch(ctx context.Context, url string, lo, hi int) error {
	texts := make([]string, 0, hi-lo)
	for i := lo; i < hi; i++ {
		texts = append(texts, scalePassage(i))
	}
	body := map[string]any{"texts": texts, "config": map[string]any{"task_type": "passage"}}
	var ans struct{ Errors []*string }
	for attempt := 0; ; attempt++ {
		status, raw, err := doJSON(ctx, http.MethodPost, url+"/vectors/batch", body, &ans)
		if err == nil && status == http.StatusServiceUnavailable && attempt < 50 {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if err != nil || status != http.StatusOK {
			return fmt.Errorf("passages %d…%d: status %d, %v: %.300s", lo, hi, status, err, raw)
		}
		for i, e := range ans.Errors {
			if e != nil {
				return fmt.Errorf("passage %d: %s", lo+i, *e)
			}
		}
		return nil
	}
}

// scaleMeta is what the test reads of /meta.
type scaleMeta struct {
	Memory struct {
		Words    int   `json:"words"`
		Contexts int   `json:"contexts"`
		Passages int64 `json:"passages"`
		Weaviate *struct {
			Bytes    int64 `json:"bytes"`
			MaxBytes int64 `json:"max_bytes"`
			Scopes   map[string]struct {
				Objects int64 `json:"objects"`
			} `json:"scopes"`
			Refreshes map[string]int64 `json:"refreshes"`
		} `json:"weaviate"`
	} `json:"memory"`
}

func readScaleMeta(t *testing.T, url string) scaleMeta {
	t.Helper()
	var m scaleMeta
	status, raw, err := doJSON(context.Background(), http.MethodGet, url+"/meta", nil, &m)
	if err != nil || status != http.StatusOK {
		t.Fatalf("GET %s/meta: status %d, %v: %.300s", url, status, err, raw)
	}
	return m
}

// settleWait bounds how long settledMeta waits for a copy read afresh.
const settleWait = 90 * time.Second

// settledMeta reads /meta of the server at url until its copy of the memory
// kept in Weaviate is within its bound, for at most settleWait: while a
// copy is read afresh beside the one it replaces (Weaviate counted fewer
// objects than the copy held), the two count together (docs/operations.md).
// It logs the copy's reads of Weaviate and any wait.
func settledMeta(t *testing.T, name, url string) scaleMeta {
	t.Helper()
	start := time.Now()
	m := readScaleMeta(t, url)
	first := m
	for r := m.Memory.Weaviate; r != nil && r.Bytes > r.MaxBytes && time.Since(start) < settleWait; r = m.Memory.Weaviate {
		time.Sleep(time.Second)
		m = readScaleMeta(t, url)
	}
	if r := m.Memory.Weaviate; r != nil {
		t.Logf("%s: the copy's reads of Weaviate after teaching: %v", name, r.Refreshes)
		if f := first.Memory.Weaviate; f.Bytes != r.Bytes {
			t.Logf("%s: the copy took %d MiB when teaching ended (a copy read afresh beside it), %d MiB %s later",
				name, f.Bytes>>20, r.Bytes>>20, time.Since(start).Round(time.Second))
		}
	}
	return m
}

// heapInUse returns the Go heap in use of the server at url, from its
// metrics (go_memstats_heap_inuse_bytes).
func heapInUse(t *testing.T, url string) int64 {
	t.Helper()
	resp, err := httpClient.Get(url + "/metrics")
	if err != nil {
		t.Fatalf("GET %s/metrics: %v", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s/metrics: %v", url, err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "go_memstats_heap_inuse_bytes "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s/metrics: %q: %v", url, line, err)
			}
			return int64(f)
		}
	}
	t.Fatalf("%s/metrics has no go_memstats_heap_inuse_bytes", url)
	return 0
}

// sampleWords returns 100 rare words first seen in passages [lo, hi).
func sampleWords(lo, hi int) []string {
	words := make([]string, 100)
	for k := range words {
		words[k] = scaleWord(3*(lo+k*(hi-lo)/len(words)) + k%3)
	}
	return words
}

// remembered counts the words of which /explain at url lists at least one
// remembered context.
func remembered(t *testing.T, url string, words []string) int {
	t.Helper()
	n := 0
	for _, w := range words {
		var ex struct {
			Words []struct {
				Count    int64
				Contexts []struct{ Remembered bool }
			}
		}
		body := map[string]any{"text": w}
		if status, raw, err := doJSON(context.Background(), http.MethodPost, url+"/explain", body, &ex); err != nil ||
			status != http.StatusOK || len(ex.Words) != 1 {
			t.Fatalf("explain %q at %s: status %d, %v: %.300s", w, url, status, err, raw)
		}
		if ex.Words[0].Count != 0 {
			t.Fatalf("%q: the model has seen it (count %d): not a synthetic rare word", w, ex.Words[0].Count)
		}
		for _, c := range ex.Words[0].Contexts {
			if c.Remembered {
				n++
				break
			}
		}
	}
	return n
}

// procMemory returns the resident set (VmRSS) and its peak (VmHWM) of
// process pid in bytes (0 where /proc does not say).
func procMemory(pid int) (rss, hwm int64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[2] == "kB" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			switch f[0] {
			case "VmRSS:":
				rss = kb << 10
			case "VmHWM:":
				hwm = kb << 10
			}
		}
	}
	return rss, hwm
}

// scaleServer is one serve of TestMemoryAtScale and what was measured of it.
type scaleServer struct {
	name, what string
	args       []string
	proc       *process
	url        string
	teach      time.Duration // time spent teaching
	baseRSS    int64         // ready, empty
	rss, hwm   int64         // after teaching
	heap       int64         // go_memstats_heap_inuse_bytes after teaching
	meta       scaleMeta     // after teaching
	late       int           // late words with a remembered context (of 100)
	early      int           // early words with a remembered context (of 100)
	start      time.Duration // start-up of a fresh process to ready
	startHWM   int64         // its peak RSS once ready
	startLate  int           // late words the fresh process remembers
	startMeta  scaleMeta     // the fresh process's memory
}

// launch starts a serve with GOMEMLIMIT limit and returns how long it took
// to answer ready.
func (s *scaleServer) launch(t *testing.T, bin, logPath string, limit int64) time.Duration {
	t.Helper()
	port := freePorts(t, 1)[0]
	s.url = "http://127.0.0.1:" + strconv.Itoa(port)
	args := append([]string{"serve", "--addr", "127.0.0.1:" + strconv.Itoa(port)}, s.args...)
	start := time.Now()
	env := []string{"GOMEMLIMIT=" + strconv.FormatInt(limit, 10)}
	s.proc = startProcess(t, t, "text2vec-am serve "+s.name, bin, args, env, logPath)
	if err := pollHTTP(s.proc, s.url+"/.well-known/ready", time.Hour); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// TestMemoryAtScale teaches T2V_SCALE_PASSAGES (default 1,000,000)
// synthetic passages, each with three rare words no other passage holds, to
// a serve keeping its memory in a stock Weaviate (--memory-weaviate-max-bytes
// T2V_SCALE_MAX_BYTES, default 256 MiB) and to a serve keeping it in a
// directory with the budgets the copy is scaled to (the anchor), through
// /vectors/batch (batches of 500, four clients a server, the two taught in
// turn, chunk by chunk), under GOMEMLIMIT T2V_SCALE_GOMEMLIMIT (default
// twice the bound and 512 MiB). It reports their passages/s, their resident
// memory against the bound, whether words first seen in the last 10 % have
// a remembered context, and the start-up of each server started again
// against the filled memory; it fails when a late word has none (checkScale).
// It runs only with T2V_BENCH=1.
//
//	T2V_BENCH=1 T2V_SCALE_PASSAGES=1000000 go test ./tests -run TestMemoryAtScale -v -timeout 60m
func TestMemoryAtScale(t *testing.T) {
	skipUnlessBench(t)
	e := requireE2E(t)
	s := scaleFromEnv(t)
	tmp, bin := t.TempDir(), text2vecAM(t, e.repo)
	w := startWeaviate(t, stockServer(t), filepath.Join(tmp, "data"), filepath.Join(tmp, "weaviate.log"),
		newWeaviatePorts(t), nil)
	var model []string
	if p := os.Getenv(EnvModel); p != "" {
		model = []string{"--model", p}
	}
	servers := []*scaleServer{
		{name: "dir", what: "`serve --memory-dir`", args: append([]string{"--memory-dir", filepath.Join(tmp, "memory"),
			"--memory-max-bytes", strconv.FormatInt(s.dirBytes, 10),
			"--memory-max-df-words", strconv.Itoa(s.dfWords)}, model...)},
		{name: "weaviate", what: "`serve --memory-weaviate`", args: append([]string{"--memory-weaviate", w.url(""),
			"--memory-weaviate-max-bytes", strconv.FormatInt(s.maxBytes, 10)}, model...)},
	}
	for _, sv := range servers {
		sv.launch(t, bin, filepath.Join(tmp, "serve-"+sv.name+".log"), s.memLimit)
		sv.baseRSS, _ = procMemory(sv.proc.cmd.Process.Pid)
	}
	teachInTurn(t, s, servers)
	for _, sv := range servers {
		sv.rss, sv.hwm = procMemory(sv.proc.cmd.Process.Pid)
		sv.meta, sv.heap = settledMeta(t, sv.name, sv.url), heapInUse(t, sv.url)
		sv.late = remembered(t, sv.url, sampleWords(s.passages-s.passages/10, s.passages))
		sv.early = remembered(t, sv.url, sampleWords(0, s.passages/10))
		sv.proc.stop(t)
	}
	for _, sv := range servers {
		sv.start = sv.launch(t, bin, filepath.Join(tmp, "serve-"+sv.name+"-again.log"), s.memLimit)
		_, sv.startHWM = procMemory(sv.proc.cmd.Process.Pid)
		sv.startMeta = readScaleMeta(t, sv.url)
		sv.startLate = remembered(t, sv.url, sampleWords(s.passages-s.passages/10, s.passages))
		sv.proc.stop(t)
	}
	t.Logf("%d passages, %d distinct rare words, batch %d, %d clients a server:\n%s",
		s.passages, 3*s.passages, s.batch, s.clients, scaleTable(s, servers))
	checkScale(t, servers)
}

// teachInTurn teaches every passage to each server, chunk by chunk, the
// servers in turn (in the other order every other chunk), timing each.
func teachInTurn(t *testing.T, s scaleSettings, servers []*scaleServer) {
	t.Helper()
	chunk := max(s.batch*s.clients, s.passages/20)
	for c, lo := 0, 0; lo < s.passages; c, lo = c+1, lo+chunk {
		hi := min(lo+chunk, s.passages)
		for i := range servers {
			sv := servers[i]
			if c%2 == 1 {
				sv = servers[len(servers)-1-i]
			}
			start := time.Now()
			if err := teachRange(context.Background(), sv.url, lo, hi, s.batch, s.clients); err != nil {
				t.Fatalf("%s: %v", sv.name, err)
			}
			sv.teach += time.Since(start)
		}
		t.Logf("%d passages taught: %s %.0f/s, %s %.0f/s", hi, servers[0].name, float64(hi)/servers[0].teach.Seconds(),
			servers[1].name, float64(hi)/servers[1].teach.Seconds())
	}
}

// checkScale asserts what must hold at any size: every late word has a
// context on the servers that learned it and on a server started after
// them (a word first seen late always gets its contexts, whatever the
// budget evicted), the copy keeps within its bound as the store estimates
// it once no copy is read afresh beside it (settledMeta), and it is never
// read afresh: nothing is deleted from Weaviate and one server writes.
func checkScale(t *testing.T, servers []*scaleServer) {
	t.Helper()
	var errs []error
	const late = "of 100 words first seen in the last 10 % have a remembered context"
	for _, sv := range servers {
		if sv.late != 100 {
			errs = append(errs, fmt.Errorf("%s: %d %s", sv.name, sv.late, late))
		}
		if sv.startLate != 100 {
			errs = append(errs, fmt.Errorf("%s started again: %d %s", sv.name, sv.startLate, late))
		}
		if r := sv.meta.Memory.Weaviate; r != nil && r.Bytes > r.MaxBytes {
			errs = append(errs, fmt.Errorf("%s: the copy takes %d bytes, above its bound of %d", sv.name, r.Bytes, r.MaxBytes))
		}
		if r := sv.meta.Memory.Weaviate; r != nil && r.Refreshes["afresh"] != 0 {
			errs = append(errs, fmt.Errorf("%s: the copy was read afresh %d times with nothing deleted (refreshes %v)",
				sv.name, r.Refreshes["afresh"], r.Refreshes))
		}
	}
	if err := errors.Join(errs...); err != nil {
		t.Error(err)
	}
}

// scaleTable renders the measurements as a markdown table.
func scaleTable(s scaleSettings, servers []*scaleServer) string {
	d, wv := servers[0], servers[1]
	mib := func(b int64) string { return fmt.Sprintf("%d MiB", b>>20) }
	rate := func(sv *scaleServer) float64 { return float64(s.passages) / sv.teach.Seconds() }
	objects, copyBytes := "—", "—"
	if r := wv.meta.Memory.Weaviate; r != nil {
		objects = strconv.FormatInt(r.Scopes[""].Objects, 10)
		copyBytes = fmt.Sprintf("%s of %s", mib(r.Bytes), mib(r.MaxBytes))
	}
	rows := [][3]string{
		{"passages/s", fmt.Sprintf("%.0f (1)", rate(d)), fmt.Sprintf("%.0f (%.2f×)", rate(wv), rate(wv)/rate(d))},
		{"memory bound", "--memory-max-bytes " + mib(s.dirBytes) + ", --memory-max-df-words " + strconv.Itoa(s.dfWords),
			"--memory-weaviate-max-bytes " + mib(s.maxBytes)},
		{"GOMEMLIMIT", mib(s.memLimit), mib(s.memLimit)},
		{"RSS empty / peak (VmHWM) / final", mib(d.baseRSS) + " / " + mib(d.hwm) + " / " + mib(d.rss),
			mib(wv.baseRSS) + " / " + mib(wv.hwm) + " / " + mib(wv.rss)},
		{"Go heap in use after teaching (/metrics)", mib(d.heap), mib(wv.heap)},
		{"words with contexts / contexts / passages counted",
			fmt.Sprintf("%d / %d / %d", d.meta.Memory.Words, d.meta.Memory.Contexts, d.meta.Memory.Passages),
			fmt.Sprintf("%d / %d / %d", wv.meta.Memory.Words, wv.meta.Memory.Contexts, wv.meta.Memory.Passages)},
		{"the copy's RAM (/meta) / objects in Weaviate", "—", copyBytes + " / " + objects},
		{"of 100 words first seen in the last 10 %: with a context", strconv.Itoa(d.late), strconv.Itoa(wv.late)},
		{"of 100 words first seen in the first 10 %: with a context", strconv.Itoa(d.early), strconv.Itoa(wv.early)},
		{"start-up to ready (reopen the directory / a fresh copy)", d.start.Round(10 * time.Millisecond).String(),
			wv.start.Round(10 * time.Millisecond).String()},
		{"after start-up: peak RSS, words with contexts, late words with a context",
			fmt.Sprintf("%s, %d, %d", mib(d.startHWM), d.startMeta.Memory.Words, d.startLate),
			fmt.Sprintf("%s, %d, %d", mib(wv.startHWM), wv.startMeta.Memory.Words, wv.startLate)},
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "| | %s (anchor) | %s |\n|---|---:|---:|\n", d.what, wv.what)
	for _, r := range rows {
		fmt.Fprintf(&sb, "| %s | %s | %s |\n", r[0], r[1], r[2])
	}
	return sb.String()
}
