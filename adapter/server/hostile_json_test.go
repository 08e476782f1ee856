package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
)

// manyKeys is a body under 8 MiB whose config holds n distinct keys, the
// shortest first, spelled with the 92 printable ASCII bytes a key needs no
// escape for.
func manyKeys(n int) []byte {
	var alphabet []byte
	for c := byte('!'); c <= '~'; c++ {
		if c != '"' && c != '\\' {
			alphabet = append(alphabet, c)
		}
	}
	var b bytes.Buffer
	b.WriteString(`{"text":"a","config":{`)
	key := make([]byte, 0, 8)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		key = key[:0]
		for j := i; ; j = j/len(alphabet) - 1 {
			key = append(key, alphabet[j%len(alphabet)])
			if j < len(alphabet) {
				break
			}
		}
		fmt.Fprintf(&b, `"%s":0`, key)
	}
	b.WriteString("}}")
	return b.Bytes()
}

// TestHostileJSONShapes: eight concurrent 8 MiB bodies, one object of a
// million keys or eight million '[', are each refused 400 while a normal
// request beside them is answered 200.
func TestHostileJSONShapes(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBodyBytes = 8 << 20
	lim.MaxBodyBuffer = 16 * lim.MaxBodyBytes
	_, _, url := startServer(t, lim)
	keys := manyKeys(1_000_000)
	if len(keys) > 8<<20 {
		t.Fatalf("keys body of %d bytes", len(keys))
	}
	nest := bytes.Repeat([]byte("["), 8<<20)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for i := range 8 {
		body := keys
		if i%2 == 1 {
			body = nest
		}
		wg.Go(func() {
			resp, err := http.Post(url+"/vectors", "application/json", bytes.NewReader(body))
			if err != nil {
				errs <- err.Error()
				return
			}
			defer resp.Body.Close()
			msg, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), "malformed JSON") {
				errs <- fmt.Sprintf("%d %.200s", resp.StatusCode, msg)
			}
		})
	}
	if status, _, resp := testhttp.Post(t, url, "/vectors", `{"text":"f1 f2"}`); status != 200 {
		t.Errorf("normal request beside the attack: %d %.200s", status, resp)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestHostileConfigNotScalar: a config value that is an array or object (a
// million keys spread over a thousand objects, say) is refused 400 before
// it is decoded into memory.
func TestHostileConfigNotScalar(t *testing.T) {
	_, _, url := startServer(t, server.DefaultLimits())
	var b strings.Builder
	b.WriteString(`{"text":"f1","config":{"x":[`)
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{`)
		for j := range 900 {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"%x":0`, j)
		}
		b.WriteString(`}`)
	}
	b.WriteString(`]}}`)
	for _, body := range []string{b.String(), `{"text":"f1","config":{"x":{"a":1}}}`} {
		if status, _, resp := testhttp.Post(t, url, "/vectors", body); status != 400 ||
			!strings.Contains(resp, `config key \"x\": want a string, number, boolean or null`) {
			t.Errorf("%.60s…: %d %.200s", body, status, resp)
		}
	}
	if status, _, resp := testhttp.Post(t, url, "/vectors", `{"text":"f1","config":{"sif_a":0.5,"task_type":"query","dimensions":null}}`); status != 200 {
		t.Errorf("scalar config: %d %s", status, resp)
	}
}

// TestHostileBatchTextsBounded: a batch of 2.7 million empty texts is
// refused 413 at the first text beyond --max-batch, as it is decoded; one
// at the limit is answered.
func TestHostileBatchTextsBounded(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBatch = 4
	_, _, url := startServer(t, lim)
	many := `{"texts":[""` + strings.Repeat(`,""`, 2_700_000) + `]}`
	if status, _, resp := testhttp.Post(t, url, "/vectors/batch", many); status != 413 || !strings.Contains(resp, "--max-batch") {
		t.Errorf("2.7 M texts: %d %.200s", status, resp)
	}
	for body, want := range map[string]int{
		`{"texts":["f1","f2","f3","f4"]}`: 200, `{"texts":[]}`: 200, `{"texts":null}`: 400, `{"texts":[1]}`: 400, `{"texts":{}}`: 400,
	} {
		if status, _, resp := testhttp.Post(t, url, "/vectors/batch", body); status != want {
			t.Errorf("%s: %d %.200s, want %d", body, status, resp, want)
		}
	}
}
