package module

import (
	"context"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
)

// TestQueryMemoryOnlyLeavesObjectsAlone: queryMemoryOnly changes a query's
// vector (its own words are no context) but not an object's, even in a
// collection that does not teach, whose objects are read as queries are.
func TestQueryMemoryOnlyLeavesObjectsAlone(t *testing.T) {
	m := newTestModule(t, false)
	const text = "w20 frobnicate w21 w22. Another sentence w23"
	plain := fakeClassConfig{settings: map[string]any{"teach": false}}
	only := fakeClassConfig{settings: map[string]any{"teach": false, "queryMemoryOnly": true}}
	ctx := context.Background()
	q, err := m.VectorizeInput(ctx, text, plain)
	if err != nil {
		t.Fatal(err)
	}
	qOnly, err := m.VectorizeInput(ctx, text, only)
	if err != nil {
		t.Fatal(err)
	}
	if sameVector(q, qOnly) {
		t.Fatal("queryMemoryOnly did not change the query's vector: the text gives AM no context")
	}
	obj := object(1, map[string]any{"text": text})
	for _, cfg := range []fakeClassConfig{plain, only} {
		single, _, err := m.VectorizeObject(ctx, obj, cfg)
		if err != nil {
			t.Fatal(err)
		}
		batch, _, errs := m.VectorizeBatch(ctx, []*models.Object{obj}, []bool{false}, cfg)
		if len(errs) != 0 {
			t.Fatal(errs)
		}
		if !sameVector(single, q) || !sameVector(batch[0], q) {
			t.Errorf("settings %v: the object's vector is not its text's with its own sentences", cfg.settings)
		}
	}
}
