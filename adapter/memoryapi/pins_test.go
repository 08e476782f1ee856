package memoryapi_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memoryapi"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// TestPinsNoticeALostStore: a client that imported through a holder, closed
// and started again (its pins on disk), refuses to import into a holder that
// came back empty, and imports again into the holder that kept its store.
func TestPinsNoticeALostStore(t *testing.T) {
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	v, err := vectorizer.New(m, nil, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	pinFile := filepath.Join(t.TempDir(), "pins.json")
	client := func(url string) *memoryapi.Client {
		c, err := memoryapi.NewClient(url, memoryapi.ClientOptions{PinFile: pinFile})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	importInto := func(c *memoryapi.Client, texts []string) error {
		_, _, err := c.VectorizeBatch(context.Background(), v, "Docs", texts, vectorizer.TaskPassage, v.Options())
		return err
	}
	kept, _ := testhttp.Holder(t, m, false)
	c := client(kept.URL)
	if err := importInto(c, testmodel.JargonPassages(40)); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	empty, _ := testhttp.Holder(t, m, false)
	err = importInto(client(empty.URL), testmodel.JargonPassages(40)[:3])
	if !errors.Is(err, memoryapi.ErrStoreLost) || !strings.Contains(err.Error(), pinFile) {
		t.Fatalf("import into a holder without its store: %v, want ErrStoreLost naming the pin file", err)
	}
	if err := importInto(client(kept.URL), testmodel.JargonPassages(50)[40:]); err != nil {
		t.Errorf("import into the holder that kept its store: %v", err)
	}
	// Deleting the pin file accepts the new store.
	if err := os.Remove(pinFile); err != nil {
		t.Fatal(err)
	}
	if err := importInto(client(empty.URL), testmodel.JargonPassages(40)[:3]); err != nil {
		t.Errorf("import after the pin file was deleted: %v", err)
	}
}

// TestPinFileRefused: a pin file that is not a JSON map of counts is refused
// with its path named.
func TestPinFileRefused(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"bad.json": "{not json", "neg.json": `{"Docs":-1}`} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := memoryapi.NewClient("http://127.0.0.1:1", memoryapi.ClientOptions{PinFile: p}); err == nil ||
			!strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
	if _, err := memoryapi.NewClient("http://127.0.0.1:1", memoryapi.ClientOptions{PinFile: dir}); err == nil {
		t.Error("a directory as the pin file was accepted")
	}
}
