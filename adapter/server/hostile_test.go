package server_test

// The hostile-input suite: every way one request, one client or
// one damaged file brought the server down or locked others out, replayed.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/admission/admissiontest"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// explainBomb is the 832 KB /explain request that ran the server out of
// memory: 4,000 unseen words plus 780 KB of '-' in one sentence.
func explainBomb() string {
	var b strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&b, "qx%06dvz ", i+1)
		if i == 2000 {
			b.WriteString(strings.Repeat("-", 788_000))
			b.WriteByte(' ')
		}
	}
	text, _ := json.Marshal(b.String())
	return `{"text":` + string(text) + `}`
}

// TestHostileExplainBounded: the 832 KB request is answered, capped, with a
// response whose size does not depend on the text beyond echoing it.
func TestHostileExplainBounded(t *testing.T) {
	lim := server.DefaultLimits()
	_, _, url := startServer(t, lim)
	body := explainBomb()
	status, _, resp := testhttp.Post(t, url, "/explain", body)
	if status != 200 {
		t.Fatalf("status %d: %.300s", status, resp)
	}
	var ex struct {
		Words        []json.RawMessage `json:"words"`
		WordsOmitted int               `json:"words_omitted"`
		Truncated    bool              `json:"truncated"`
	}
	if err := json.Unmarshal([]byte(resp), &ex); err != nil {
		t.Fatal(err)
	}
	budget := len(body) + lim.Explain.MaxBytes + 64<<10 // the echoed text, the budget, the vector
	if len(resp) > budget || !ex.Truncated || len(ex.Words) > lim.Explain.MaxWords || ex.WordsOmitted == 0 {
		t.Errorf("response %d bytes (budget %d), %d words listed, %d omitted, truncated %v",
			len(resp), budget, len(ex.Words), ex.WordsOmitted, ex.Truncated)
	}
	lim.NoExplain = true
	_, _, off := startServer(t, lim)
	if status, _, resp := testhttp.Post(t, off, "/explain", `{"text":"f1"}`); status != http.StatusForbidden || !strings.Contains(resp, "--explain off") {
		t.Errorf("--explain off: %d %s", status, resp)
	}
}

// TestHostileLinearWork: 16,000 distinct unseen words in one sentence are
// answered (BenchmarkUnseenWords measures how fast), and a text over
// --max-am-words is refused before any work and counted.
func TestHostileLinearWork(t *testing.T) {
	_, _, url := startServer(t, server.DefaultLimits())
	body, _ := json.Marshal(map[string]string{"text": unseenSentence(16000)})
	if status, _, resp := testhttp.Post(t, url, "/vectors", string(body)); status != 200 {
		t.Fatalf("16,000 unseen words: %d %.200s", status, resp)
	}
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	o := vectorizer.DefaultOptions()
	o.MaxAMWords = 100
	v, err := vectorizer.New(m, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.NewServer(v, nil, "small", server.DefaultLimits(), testhttp.Quiet())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	body, _ = json.Marshal(map[string]string{"text": unseenSentence(101)})
	if status, _, resp := testhttp.Post(t, ts.URL, "/vectors", string(body)); status != 413 || !strings.Contains(resp, "--max-am-words") {
		t.Errorf("101 AM words over a limit of 100: %d %s", status, resp)
	}
	batch, _ := json.Marshal(map[string][]string{"texts": {unseenSentence(101), "f1"}})
	if status, _, resp := testhttp.Post(t, ts.URL, "/vectors/batch", string(batch)); status != 200 || !strings.Contains(resp, "too many distinct words") {
		t.Errorf("batch: %d %.300s", status, resp)
	}
	if m := testhttp.Metrics(t, ts.URL); !strings.Contains(m, "t2vam_texts_refused_am_words_total 2") {
		t.Errorf("refusals not counted:\n%s", testhttp.GrepLines(m, "am_words"))
	}
}

// TestHostileCancellation: work stops at --request-timeout (503, counted as
// deadline) and when the client leaves (499, counted as client_gone). Both
// cases are arranged so that they do not depend on how fast the work is: the
// deadline is 1 ns, and the client is gone by the time its body has been read.
func TestHostileCancellation(t *testing.T) {
	lim := server.DefaultLimits()
	lim.RequestTimeout = time.Nanosecond
	_, _, url := startServer(t, lim)
	heavy, _ := json.Marshal(map[string]string{"text": heavyText(15000)})
	status, _, resp := testhttp.Post(t, url, "/vectors", string(heavy))
	if status != http.StatusServiceUnavailable || !strings.Contains(resp, "--request-timeout") {
		t.Errorf("deadline: %d %s", status, resp)
	}
	if m := testhttp.Metrics(t, url); !strings.Contains(m, `t2vam_requests_stopped_total{reason="deadline"} 1`) {
		t.Errorf("deadline not counted:\n%s", testhttp.GrepLines(m, "stopped"))
	}

	srv, _, url := startServer(t, server.DefaultLimits())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, "POST", "/vectors", &cancelAtEOF{r: bytes.NewReader(heavy), cancel: cancel})
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 499 || !strings.Contains(rec.Body.String(), "client closed") {
		t.Errorf("client gone: %d %s", rec.Code, rec.Body.String())
	}
	if m := testhttp.Metrics(t, url); !strings.Contains(m, `t2vam_requests_stopped_total{reason="client_gone"} 1`) {
		t.Errorf("client_gone not counted:\n%s", testhttp.GrepLines(m, "stopped"))
	}
}

// cancelAtEOF is a request body that cancels the request's context as the
// server reads its end, as the Go server does when the client hangs up after
// sending its body.
type cancelAtEOF struct {
	r      io.Reader
	cancel context.CancelFunc
}

func (c *cancelAtEOF) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		c.cancel()
	}
	return n, err
}

// slowConn opens a connection that announces a body of 100,000 bytes and
// sends one byte every interval until closed.
func slowConn(t *testing.T, addr string, interval time.Duration, stop <-chan struct{}) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST /vectors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
	go func() {
		tk := time.NewTicker(interval)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	return c
}

// TestHostileSlowBodies: eight connections trickling their bodies hold no
// slot: 20 of 20 probes are answered 200; the slow bodies get 408.
func TestHostileSlowBodies(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxConcurrent = 8
	lim.BodyTimeout = 2 * time.Second
	_, _, url := startServer(t, lim)
	addr := strings.TrimPrefix(url, "http://")
	stop := make(chan struct{})
	defer close(stop)
	var conns []net.Conn
	for range 8 {
		conns = append(conns, slowConn(t, addr, 200*time.Millisecond, stop))
	}
	time.Sleep(100 * time.Millisecond)
	for i := range 20 {
		if status, _, resp := testhttp.Post(t, url, "/vectors", `{"text":"f1 f2"}`); status != 200 {
			t.Fatalf("probe %d: %d %s", i, status, resp)
		}
	}
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("slow body %d: %v", i, err)
		}
		if resp.StatusCode != http.StatusRequestTimeout {
			t.Errorf("slow body %d: %d", i, resp.StatusCode)
		}
		c.Close()
	}
}

// rawStatus sends a request and returns the status the server answered with.
func rawStatus(t *testing.T, method, url, contentType string, header map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestHostileHTTP: media types, routes, methods, key spelling and duplicate
// keys, cross-origin browser requests.
func TestHostileHTTP(t *testing.T) {
	_, mem, url := startServer(t, server.DefaultLimits())
	passage := `{"text":"Zqword f1 f2.","config":{"task_type":"passage"}}`
	for _, c := range []struct {
		name, method, path, ctype string
		header                    map[string]string
		body                      string
		status                    int
		want                      string
	}{
		{"text/plain", "POST", "/vectors", "text/plain", nil, passage, 415, "application/json"},
		{"form", "POST", "/vectors/batch", "application/x-www-form-urlencoded", nil, `{"texts":["f1"]}`, 415, "application/json"},
		{"latin-1 json", "POST", "/explain", "application/json; charset=latin1", nil, `{"text":"f1"}`, 415, "UTF-8"},
		{"cross-origin page", "POST", "/vectors", "application/json", map[string]string{"Sec-Fetch-Site": "cross-site"}, passage, 403, "cross-origin"},
		{"foreign Origin", "POST", "/vectors", "", map[string]string{"Origin": "http://evil.example"}, passage, 403, "cross-origin"},
		{"subpath", "POST", "/vectors/anything", "application/json", nil, passage, 404, "no endpoint"},
		{"GET /vectors", "GET", "/vectors", "", nil, "", 405, "POST"},
		{"PUT /meta", "PUT", "/meta", "application/json", nil, "{}", 405, "GET"},
		{"Text", "POST", "/vectors", "application/json", nil, `{"Text":"f1"}`, 400, `unknown field \"Text\"`},
		{"duplicate text", "POST", "/vectors", "application/json", nil, `{"text":"f1","text":"f2"}`, 400, "duplicate key"},
		{"duplicate config key", "POST", "/vectors", "application/json", nil, `{"text":"f1","config":{"task_type":"query","task_type":"passage"}}`, 400, "duplicate key"},
		{"TEXTS", "POST", "/vectors/batch", "application/json", nil, `{"TEXTS":["f1"]}`, 400, `unknown field \"TEXTS\"`},
	} {
		status, hdr, body := rawStatus(t, c.method, url+c.path, c.ctype, c.header, c.body)
		if status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %s, want %d containing %q", c.name, status, body, c.status, c.want)
		}
		if status == 405 && !strings.Contains(hdr.Get("Allow"), c.want) {
			t.Errorf("%s: Allow %q", c.name, hdr.Get("Allow"))
		}
	}
	if st := mem.Stats(); st.Words != 0 || st.Passages != 0 {
		t.Errorf("a refused request wrote the memory: %+v", st)
	}
	// Weaviate's clients send no Content-Type: accepted. The trailing slash too.
	for _, p := range []string{"/vectors", "/vectors/"} {
		if status, _, body := rawStatus(t, "POST", url+p, "", nil, `{"text":"f1"}`); status != 200 {
			t.Errorf("%s without Content-Type: %d %s", p, status, body)
		}
	}
	if status, _, body := rawStatus(t, "POST", url+"/vectors", "application/json; charset=UTF-8", nil, `{"text":"f1"}`); status != 200 {
		t.Errorf("charset=UTF-8: %d %s", status, body)
	}
}

// TestHostileOverridesCannotWiden: frequent_min = 2^53 makes every word
// "rare" for the request, but a passage still teaches the memory only the
// words that are not frequent under the server's settings.
func TestHostileOverridesCannotWiden(t *testing.T) {
	_, mem, url := startServer(t, server.DefaultLimits())
	body := `{"text":"f1 f2 zqnew f3.","config":{"task_type":"passage","frequent_min":9007199254740992,"rare_min":9007199254740992}}`
	if status, _, resp := testhttp.Post(t, url, "/vectors", body); status != 200 {
		t.Fatalf("%d %s", status, resp)
	}
	for _, w := range []string{"f1", "f2", "f3"} {
		if c, _ := mem.Contexts(nil, w); len(c) != 0 {
			t.Errorf("frequent word %s remembered: %q", w, c)
		}
	}
	if c, _ := mem.Contexts(nil, "zqnew"); len(c) != 1 {
		t.Errorf("the unseen word was not remembered: %q", c)
	}
}

// TestHostileRefusedBodyAnswered: a body over the limit is answered 413, read
// by the client, not reset.
func TestHostileRefusedBodyAnswered(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBodyBytes = 1 << 20
	_, _, url := startServer(t, lim)
	big := `{"texts":["` + strings.Repeat("f1 ", 3<<20/3) + `"]}`
	for i := range 5 {
		status, _, body := rawStatus(t, "POST", url+"/vectors/batch", "application/json", nil, big)
		if status != 413 || !strings.Contains(body, "--max-body-bytes") {
			t.Fatalf("try %d: %d %.200s", i, status, body)
		}
	}
}

// TestHostileReadyWhileDraining: after SIGTERM (ctx cancelled) /ready answers
// 503 for --ready-delay before the listener closes.
func TestHostileReadyWhileDraining(t *testing.T) {
	lim := server.DefaultLimits()
	lim.ReadyDelay = 500 * time.Millisecond
	s, _ := newServer(t, lim, "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error)
	go func() { served <- s.Serve(ctx, ln, 5*time.Second) }()
	if status, _, _ := testhttp.Get(t, url+"/.well-known/ready"); status != 204 {
		t.Fatalf("ready before shutdown: %d", status)
	}
	cancel()
	time.Sleep(50 * time.Millisecond)
	resp, err := http.Get(url + "/.well-known/ready")
	if err != nil {
		t.Fatalf("/ready refused while draining: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/ready while draining: %d", resp.StatusCode)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// TestHostileDiskFull fills a small tmpfs under the memory (root only): the
// failing passage gets 507 without any path, /ready says 503, and once space
// is freed both recover by themselves.
func TestHostileDiskFull(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	dir := filepath.Join(mnt, "mem")
	lim := server.DefaultLimits()
	s, mem := newServer(t, lim, dir)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	defer mem.Close()
	filler := filepath.Join(mnt, "filler")
	f, _ := os.Create(filler)
	f.Write(make([]byte, 200<<10))
	f.Close()
	var status int
	var body string
	acknowledged := int64(0)
	for i := 0; i < 5000; i++ {
		text := fmt.Sprintf(`{"text":"Zq%dword %s f1 f2.","config":{"task_type":"passage"}}`, i, strings.Repeat("x", 100))
		status, _, body = testhttp.Post(t, ts.URL, "/vectors", text)
		if status != 200 {
			break
		}
		acknowledged++
	}
	if status != http.StatusInsufficientStorage || strings.Contains(body, mnt) || strings.Contains(body, "/") {
		t.Fatalf("disk full: %d %s", status, body)
	}
	if n := mem.Stats().Passages; n != acknowledged {
		t.Errorf("%d passages counted, %d acknowledged: the refused one counts", n, acknowledged)
	}
	if st, _, b := testhttp.Get(t, ts.URL+"/.well-known/ready"); st != 503 || strings.Contains(b, mnt) {
		t.Errorf("/ready with a full disk: %d %s", st, b)
	}
	os.Remove(filler)
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, _, _ := testhttp.Get(t, ts.URL+"/.well-known/ready")
		if st == 204 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("/ready never recovered after space was freed")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st, _, b := testhttp.Post(t, ts.URL, "/vectors", `{"text":"Zqafter f1.","config":{"task_type":"passage"}}`); st != 200 {
		t.Fatalf("after space returned: %d %s", st, b)
	}
}

// TestHostileBodyBuffer: bodies are read before a slot, so their total is
// bounded on its own (--max-body-buffer), counted as bytes arrive: clients
// holding half-sent bodies make a new body 503, and once they leave, 200.
func TestHostileBodyBuffer(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBodyBytes = 4096
	lim.MaxBodyBuffer = 8192
	lim.Patience = time.Hour // no request cut to make room
	_, _, url := startServer(t, lim)
	addr := strings.TrimPrefix(url, "http://")
	var conns []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST /vectors HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\n{\"text\":\"%s", strings.Repeat("f1 ", 1000))
		conns = append(conns, c)
	}
	time.Sleep(200 * time.Millisecond)
	body := `{"text":"` + strings.Repeat("f2 ", 1000) + `"}`
	status, hdr, resp := testhttp.Post(t, url, "/vectors", body)
	if status != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" || !strings.Contains(resp, "--max-body-buffer") {
		t.Errorf("over the body buffer: %d %s", status, resp)
	}
	for _, c := range conns {
		c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		status, _, resp = testhttp.Post(t, url, "/vectors", body)
		if status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the clients left: %d %s", status, resp)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// halfSent opens a connection that announces a body of 4,000 bytes and
// sends all but its last 1,000.
func halfSent(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /vectors HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\n{\"text\":\"%s", strings.Repeat("f1 ", 1000))
	return c
}

// TestHostileHeldBodiesCut: clients holding half-sent bodies that fill
// --max-body-buffer cannot keep others out: once they have held them past
// the patience, a new body cuts the oldest (408 naming the cut) and is
// answered 200, as are the next ones.
func TestHostileHeldBodiesCut(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBodyBytes = 4096
	lim.MaxBodyBuffer = 8192
	lim.Patience = 50 * time.Millisecond
	_, _, url := startServer(t, lim)
	addr := strings.TrimPrefix(url, "http://")
	var conns []net.Conn
	for range 3 {
		conns = append(conns, halfSent(t, addr))
		time.Sleep(20 * time.Millisecond) // in this order
	}
	time.Sleep(200 * time.Millisecond)
	body := `{"text":"` + strings.Repeat("f2 ", 1000) + `"}`
	for i := range 3 {
		if status, _, resp := testhttp.Post(t, url, "/vectors", body); status != http.StatusOK {
			t.Fatalf("body %d beside bodies held past the patience: %d %s", i, status, resp)
		}
	}
	conns[0].SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conns[0]), nil)
	if err != nil {
		t.Fatalf("the oldest held body: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "cut to make room") {
		t.Errorf("the oldest held body: %d %s, want 408 naming the cut", resp.StatusCode, b)
	}
	_, _, metrics := testhttp.Get(t, url+"/metrics")
	if strings.Contains(metrics, "\nt2vam_http_cut_for_room_total 0\n") {
		t.Errorf("cuts not counted: %s", grepLines(metrics, "cut_for_room"))
	}
}

// TestHostileTricklingBodiesCut: clients that fill --max-body-buffer with
// half-sent bodies, then send a byte every 20 ms (more often than the
// patience) to look busy, cannot keep others out: a trickle falls behind
// --max-body-bytes per --body-timeout, so a new body cuts one (408 naming
// the cut) and is answered 200.
func TestHostileTricklingBodiesCut(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBodyBytes = 4096
	lim.BodyTimeout = 10 * time.Second // a body keeps up at 410 bytes/s
	lim.MaxBodyBuffer = 8192
	lim.Patience = 100 * time.Millisecond
	_, _, url := startServer(t, lim)
	addr := strings.TrimPrefix(url, "http://")
	stop := make(chan struct{})
	defer close(stop)
	var conns []net.Conn
	for range 2 {
		c := halfSent(t, addr)
		conns = append(conns, c)
		go func() {
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for range 150 { // at most 3 s
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				if _, err := c.Write([]byte("f")); err != nil {
					return
				}
			}
		}()
	}
	time.Sleep(400 * time.Millisecond)
	body := `{"text":"` + strings.Repeat("f2 ", 1000) + `"}`
	if status, _, resp := testhttp.Post(t, url, "/vectors", body); status != http.StatusOK {
		t.Fatalf("a body beside trickling bodies: %d %s, want 200", status, resp)
	}
	cut := 0
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			continue // not cut: still sending
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "cut to make room") {
			t.Errorf("a trickling body: %d %s, want 408 naming the cut", resp.StatusCode, b)
		}
		cut++
	}
	if cut == 0 {
		t.Error("no trickling body was cut")
	}
}

// TestHostileFreshBodiesCut: clients that fill --max-body-buffer with
// half-sent bodies and, each time one is cut, send a fresh one at once, so
// that none held is ever the patience behind when a newcomer arrives,
// cannot keep others out: a body that finds the buffer full waits, up to
// --queue-wait, until one held can be cut, and is answered 200.
func TestHostileFreshBodiesCut(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBodyBytes = 4096
	lim.MaxBodyBuffer = 8192
	lim.Patience = 100 * time.Millisecond
	_, _, url := startServer(t, lim)
	addr := strings.TrimPrefix(url, "http://")
	stop := make(chan struct{})
	done := make(chan int)
	for range 4 {
		go func() {
			sent := 0
			defer func() { done <- sent }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				fmt.Fprintf(c, "POST /vectors HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\n{\"text\":\"%s",
					strings.Repeat("f1 ", 1000))
				sent++
				c.SetReadDeadline(time.Now().Add(time.Second)) // the last ones held are not cut
				http.ReadResponse(bufio.NewReader(c), nil)
				c.Close()
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	body := `{"text":"` + strings.Repeat("f2 ", 1000) + `"}`
	for i := range 10 {
		if status, _, resp := testhttp.Post(t, url, "/vectors", body); status != http.StatusOK {
			t.Errorf("body %d beside fresh bodies sent anew: %d %s, want 200", i, status, resp)
		}
	}
	close(stop)
	sent := 0
	for range 4 {
		sent += <-done
	}
	if sent < 8 {
		t.Errorf("the clients sent %d bodies, want them sent anew after each cut", sent)
	}
}

// TestHostileBusyBigBodyAnswered: a large batch refused because every slot
// is busy is answered 503 (its body was read first), never reset.
func TestHostileBusyBigBodyAnswered(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxConcurrent = 1
	lim.QueueWait = time.Millisecond
	_, _, url := startServer(t, lim)
	heavy, _ := json.Marshal(map[string]string{"text": heavyText(15000)})
	stop := make(chan struct{})
	held := make(chan struct{}, 1)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			resp, err := http.Post(url+"/vectors", "application/json", bytes.NewReader(heavy))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			select {
			case held <- struct{}{}:
			default:
			}
		}
	}()
	defer close(stop)
	<-held
	texts := make([]string, 1000)
	for i := range texts {
		texts[i] = strings.Repeat("f1 f2 f3 ", 100)
	}
	big, _ := json.Marshal(map[string][]string{"texts": texts})
	busy := 0
	for range 20 {
		status, _, body := rawStatus(t, "POST", url+"/vectors/batch", "application/json", nil, string(big))
		switch status {
		case http.StatusServiceUnavailable:
			busy++
		case http.StatusOK:
		default:
			t.Fatalf("%d %.200s", status, body)
		}
	}
	if busy == 0 {
		t.Log("the slot was never busy when the batch arrived (timing); every batch answered 200")
	}
}

// smallSendListener gives each connection it accepts a 16 KiB send buffer,
// so that an answer a client does not read stays in the server's hands
// whatever the host's TCP buffers.
type smallSendListener struct{ net.Listener }

func (l smallSendListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		err = errors.Join(err, tc.SetWriteBuffer(16<<10))
	}
	return c, err
}

// startSmallSendServer starts a server with lim whose connections have a
// small send buffer (smallSendListener) and returns its URL.
func startSmallSendServer(t *testing.T, lim server.Limits) string {
	t.Helper()
	s, _ := newServer(t, lim, "")
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Listener = smallSendListener{ts.Listener}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL
}

// batchBody is a /vectors/batch body of n copies of one short text.
func batchBody(n int) []byte {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = "f1 f2"
	}
	b, _ := json.Marshal(map[string][]string{"texts": texts})
	return b
}

// slowReader sends body to path over a connection with a 4 KiB receive
// buffer, reads the head of the answer and then stops reading.
func slowReader(t *testing.T, addr, path string, body []byte) *http.Response {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.(*net.TCPConn).SetReadBuffer(4096); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		path, len(body), body)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s: the head of the answer: %v", path, err)
	}
	return resp
}

// TestHostileSlowReaders: clients that never read their large answers, as
// many as there are slots, hold no slot (an answer is written after its
// slot is released): probes beside them are answered 200, and the slow
// answers end at their write deadline (--body-timeout, plus as much per
// --max-body-bytes of answer), leaving no request in flight, and count as
// cut.
func TestHostileSlowReaders(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxConcurrent = 2
	lim.MaxBatch = 12000
	lim.BodyTimeout = time.Second
	url := startSmallSendServer(t, lim)
	addr := strings.TrimPrefix(url, "http://")
	body := batchBody(lim.MaxBatch) // a 4.7 MB answer
	for i := range lim.MaxConcurrent {
		if resp := slowReader(t, addr, "/vectors/batch", body); resp.StatusCode != http.StatusOK {
			t.Fatalf("slow reader %d: %d", i, resp.StatusCode)
		}
	}
	for i := range 5 {
		if status, _, resp := testhttp.Post(t, url, "/vectors", `{"text":"f1 f2"}`); status != http.StatusOK {
			t.Fatalf("probe %d beside %d slow readers: %d %s", i, lim.MaxConcurrent, status, resp)
		}
	}
	deadline := time.Now().Add(10 * lim.BodyTimeout)
	for {
		_, _, metrics := testhttp.Get(t, url+"/metrics")
		if strings.Contains(metrics, "\nt2vam_http_in_flight_requests 1\n") { // this scrape
			if want := fmt.Sprintf("\nt2vam_http_answers_cut_total %d\n", lim.MaxConcurrent); !strings.Contains(metrics, want) {
				t.Errorf("the slow answers cut: %s, want %d", grepLines(metrics, "answers_cut"), lim.MaxConcurrent)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slow answers outlived their write deadline: %s", grepLines(metrics, "in_flight"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestHostileSlowReadersCut: clients that never read their large answers,
// enough to fill --max-body-buffer, cannot keep other answers out: once
// they have held them past the patience, a new answer cuts the oldest
// (its connection is closed before the answer ends) and is written.
func TestHostileSlowReadersCut(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBatch = 12000
	lim.MaxBodyBuffer = 12 << 20
	lim.Patience = 50 * time.Millisecond
	url := startSmallSendServer(t, lim)
	addr := strings.TrimPrefix(url, "http://")
	mid := batchBody(12000) // a 4.7 MB answer
	var held []*http.Response
	for i := range 2 {
		resp := slowReader(t, addr, "/vectors/batch", mid)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("slow reader %d: %d", i, resp.StatusCode)
		}
		held = append(held, resp)
	}
	time.Sleep(200 * time.Millisecond)
	resp := slowReader(t, addr, "/vectors/batch", mid)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("a third answer beside two held past the patience: %d %.200s, want 200", resp.StatusCode, b)
	}
	if n, err := io.Copy(io.Discard, held[0].Body); err == nil || n >= held[0].ContentLength {
		t.Errorf("the oldest held answer: read %d of %d bytes, err %v; want it cut", n, held[0].ContentLength, err)
	}
	if status, _, resp := testhttp.Post(t, url, "/vectors", `{"text":"f1 f2"}`); status != http.StatusOK {
		t.Errorf("a small answer beside the held ones: %d %.200s", status, resp)
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestHostileAnswerBuffer: answers waiting for slow clients are charged to
// --max-body-buffer with the request bodies: an answer that would exceed it
// beside others is refused 503 + Retry-After, one that fits is written, and
// an answer alone is written whatever its size.
func TestHostileAnswerBuffer(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBatch = 35000
	lim.MaxBodyBuffer = 12 << 20
	lim.Patience = time.Hour // no request cut to make room
	url := startSmallSendServer(t, lim)
	addr := strings.TrimPrefix(url, "http://")
	if status, _, resp := testhttp.Post(t, url, "/vectors/batch", string(batchBody(35000))); status != http.StatusOK {
		t.Fatalf("a 13.7 MB answer alone: %d %.200s", status, resp)
	}
	mid := batchBody(12000) // a 4.7 MB answer
	for i := range 2 {
		if resp := slowReader(t, addr, "/vectors/batch", mid); resp.StatusCode != http.StatusOK {
			t.Fatalf("slow reader %d: %d", i, resp.StatusCode)
		}
	}
	resp := slowReader(t, addr, "/vectors/batch", mid)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a third answer beside two held: %d, want 503", resp.StatusCode)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "--max-body-buffer") {
		t.Errorf("a third answer beside two held: Retry-After %q, %s", resp.Header.Get("Retry-After"), b)
	}
	if status, _, resp := testhttp.Post(t, url, "/vectors", `{"text":"f1 f2"}`); status != http.StatusOK {
		t.Errorf("a small answer beside two held: %d %.200s", status, resp)
	}
}

// TestHostileUnreadErrorHoldsNoBody: a client that does not read the error
// answering its body (its connection's buffers full of earlier answers)
// holds none of the body's bytes while the error waits to be written: an
// error is not cut to make room as an answer is.
func TestHostileUnreadErrorHoldsNoBody(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBodyBytes = 4096
	s, _ := newServer(t, lim, "")
	for _, c := range []struct {
		name, body string
		length     int64
	}{
		{"malformed JSON", `{"text":"f1"` + strings.Repeat(" ", 3000) + `,}`, 0},
		{"body over the limit", `{"text":"` + strings.Repeat("f1 ", 2000) + `"}`, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/vectors", strings.NewReader(c.body))
			if c.length != 0 {
				r.ContentLength = c.length // unknown: the limit is found reading
			}
			w := admissiontest.NewStalledWriter()
			done := make(chan struct{})
			go func() {
				defer close(done)
				s.Handler().ServeHTTP(w, r)
			}()
			select {
			case <-w.Writing():
			case <-time.After(10 * time.Second):
				t.Fatal("no answer written")
			}
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			w.Release()
			<-done
			if !strings.Contains(rec.Body.String(), "\nt2vam_body_buffer_held_bytes 0\n") {
				t.Errorf("while the error waits to be written: %s, want 0", grepLines(rec.Body.String(), "buffer_held"))
			}
		})
	}
}
