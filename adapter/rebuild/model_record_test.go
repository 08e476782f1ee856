package rebuild_test

import (
	"context"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/rebuild"
)

// TestRebuildRecordsModel: a rebuild teaches the memory directory with its
// model as memory warm does, so the directory records the model that wrote
// it, and a server with another model warns.
func TestRebuildRecordsModel(t *testing.T) {
	ts, _ := weaviate(t, stockSchema, false)
	o := options(t, ts.URL)
	o.MemoryDir = t.TempDir()
	if _, err := rebuild.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if _, st := export(t, o.MemoryDir); st.Model == "" {
		t.Errorf("the rebuilt memory records no model (stats %+v)", st)
	}
}
