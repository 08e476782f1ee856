package command_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/witness"
	"github.com/text2vec-am/text2vec-am/adapter/witness/witnesstest"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
)

// TestServeMemoryWitness loses a served memory's directory: restarted on an
// empty one, serve refuses to vectorize (503, not ready) until it is told
// to accept it.
func TestServeMemoryWitness(t *testing.T) {
	mf := modelFile(t)
	weaviate := witnesstest.New()
	t.Cleanup(weaviate.Close)
	dir := filepath.Join(t.TempDir(), "memory")
	args := []string{"--model", mf, "--memory-dir", dir, "--memory-witness", weaviate.URL}
	passage := `{"text":"Zqwitness f1 f2.","config":{"task_type":"passage"}}`

	url, stop, _ := startServe(t, args...)
	for _, text := range []string{passage, strings.Replace(passage, "f2", "f3", 1)} {
		if status, _, body := testhttp.Post(t, url, "/vectors", text); status != 200 {
			t.Fatalf("%d %s", status, body)
		}
	}
	stop()
	if got := weaviate.Passages(witness.DefaultName); got != float64(2) {
		t.Fatalf("witness recorded %v passages, want 2", got)
	}

	if err := os.RemoveAll(dir); err != nil { // the volume is lost
		t.Fatal(err)
	}
	url, stop, errb := startServe(t, args...)
	status, _, body := testhttp.Post(t, url, "/vectors", passage)
	if status != 503 || !strings.Contains(body, `holds 0 passages`) || !strings.Contains(body, "recorded 2") ||
		strings.Contains(body, dir) {
		t.Errorf("vectorizing with a lost memory: %d %s", status, body)
	}
	if code, _, body := testhttp.Get(t, url+"/.well-known/ready"); code != 503 || !strings.Contains(body, "holds 0 passages") {
		t.Errorf("ready with a lost memory: %d %s", code, body)
	}
	stop()
	if log := errb.String(); !strings.Contains(log, "context memory refused") || !strings.Contains(log, dir) ||
		!strings.Contains(log, "memory rebuild") {
		t.Errorf("the log does not say how to mend it: %s", log)
	}
	if got := weaviate.Passages(witness.DefaultName); got != float64(2) {
		t.Errorf("a refused memory changed its witness: %v", got)
	}

	url, stop, _ = startServe(t, append(args, "--memory-witness-reset")...)
	if status, _, body := testhttp.Post(t, url, "/vectors", passage); status != 200 {
		t.Errorf("after --memory-witness-reset: %d %s", status, body)
	}
	stop()
	if got := weaviate.Passages(witness.DefaultName); got != float64(1) {
		t.Errorf("after reset the witness recorded %v passages, want 1", got)
	}
}

// TestServeMemoryWitnessWaits starts serve while Weaviate is down: it is
// ready (a Weaviate that waits for it can start), and vectorizing waits for
// the witness instead of using a memory it has not checked.
func TestServeMemoryWitnessWaits(t *testing.T) {
	weaviate := witnesstest.New()
	t.Cleanup(weaviate.Close)
	weaviate.Fail(http.StatusBadGateway)
	url, stop, _ := startServe(t, "--model", modelFile(t), "--memory-dir", filepath.Join(t.TempDir(), "m"),
		"--memory-witness", weaviate.URL, "--request-timeout", "300ms")
	defer stop()
	if code, _, body := testhttp.Get(t, url+"/.well-known/ready"); code != 204 {
		t.Errorf("ready while the witness is read: %d %s", code, body)
	}
	status, _, body := testhttp.Post(t, url, "/vectors", `{"text":"f1 f2."}`)
	if status != 503 || !strings.Contains(body, "not read yet") {
		t.Errorf("vectorizing before the witness is read: %d %s", status, body)
	}
	weaviate.Fail(0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if status, _, _ = testhttp.Post(t, url, "/vectors", `{"text":"f1 f2."}`); status == 200 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("still %d once Weaviate answers", status)
}
