package memoryapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memoryapi"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// TestLookupAmplification: one small lookup that repeats a word must not make
// the holder build an answer thousands of times its size (every repeat used to
// carry all the word's contexts: a 40 KB request, a 200 MB answer).
func TestLookupAmplification(t *testing.T) {
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := testhttp.Holder(t, m, false)
	post := func(path string, v any) (int, int64) {
		body, _ := json.Marshal(v)
		req, _ := http.NewRequest(http.MethodPost, ts.URL+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		n, _ := io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, n
	}
	var learn memoryapi.LearnRequest
	for i := range 64 {
		learn.Observations = append(learn.Observations, memoryapi.Observation{Word: "zzqxv",
			Context: "zzqxv " + strings.Repeat(string(rune('a'+i%26))+"x ", 450)})
	}
	if st, _ := post(memoryapi.PathLearn, learn); st != http.StatusOK {
		t.Fatalf("learn: status %d", st)
	}
	var look memoryapi.LookupRequest
	for range 4000 {
		look.Contexts = append(look.Contexts, memoryapi.ContextQuery{Word: "zzqxv"})
	}
	reqBytes, _ := json.Marshal(look)
	st, n := post(memoryapi.PathLookup, look)
	if st != http.StatusBadRequest || n > 64*int64(len(reqBytes)) {
		t.Fatalf("a %d-byte lookup repeating one word: status %d, a %d-byte answer; want 400", len(reqBytes), st, n)
	}
}

// TestMemoryAPIStrictKeys: the memory API refuses what /vectors refuses: a
// key spelled in another case and a duplicate key (encoding/json would take
// "Collection" for "collection", and the last of two).
func TestMemoryAPIStrictKeys(t *testing.T) {
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	ts, mem := testhttp.Holder(t, m, false)
	for _, body := range []string{
		`{"Collection":"Doc","passages":[["zzqxa"]]}`,
		`{"collection":"Doc","collection":"Other","passages":[["zzqxa"]]}`,
		`{"passages":[["zzqxa"]],"observations":[{"word":"a","word":"b","context":"a b"}]}`,
	} {
		resp, err := http.Post(ts.URL+memoryapi.PathLearn, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("learn %s: status %d, want 400", body, resp.StatusCode)
		}
	}
	if st := mem.Stats(); st.Passages != 0 {
		t.Errorf("refused requests counted %d passages", st.Passages)
	}
}

// TestLearnKeepsNoContextsOfFrequentWords: the holder stores what a local
// memory stores, whatever a client sends: no contexts of a frequent word.
func TestLearnKeepsNoContextsOfFrequentWords(t *testing.T) {
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	ts, mem := testhttp.Holder(t, m, false)
	f := testmodel.FrequentWord(1)
	body := `{"observations":[{"word":"` + f + `","context":"` + f + ` f2 f3"},{"word":"zzqxa","context":"zzqxa f2 f3"}]}`
	resp, err := http.Post(ts.URL+memoryapi.PathLearn, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("learn: status %d", resp.StatusCode)
	}
	if ctx, _ := mem.Contexts(nil, f); len(ctx) != 0 {
		t.Errorf("the holder stored %d contexts of the frequent word %q", len(ctx), f)
	}
	if ctx, _ := mem.Contexts(nil, "zzqxa"); len(ctx) != 1 {
		t.Errorf("the holder stored %d contexts of the unseen word, want 1", len(ctx))
	}
}
