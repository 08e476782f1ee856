package module

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
)

// TestImportOrderIndependent: the same objects imported in two orders, one
// with resent batches, leave byte-identical memories and give every query
// the same vector.
func TestImportOrderIndependent(t *testing.T) {
	var objs []*models.Object
	for i := range 40 {
		text := fmt.Sprintf("w%d zorblax w%d. quuxify w%d frobnitz n%d.", i%5, i%7, i%3, i)
		objs = append(objs, object(i, map[string]any{"text": text}))
	}
	reversed := slices.Clone(objs)
	slices.Reverse(reversed)
	resent := append(slices.Clone(reversed[:10]), reversed...)
	resent = append(resent, objs[20:30]...)
	run := func(order []*models.Object) (string, [][]float32) {
		m, _ := localModule(t)
		ctx := context.Background()
		teach := fakeClassConfig{settings: map[string]any{SettingTeach: true}}
		for start := 0; start < len(order); start += 7 {
			batch := order[start:min(len(order), start+7)]
			if _, _, errs := m.VectorizeBatch(ctx, batch, make([]bool, len(batch)), teach); len(errs) > 0 {
				t.Fatal(errs)
			}
		}
		c, err := m.colls.Find("Doc")
		if err != nil || c == nil {
			t.Fatalf("collection Doc: %v", err)
		}
		var b bytes.Buffer
		if err := c.Export(&b); err != nil {
			t.Fatal(err)
		}
		var qs [][]float32
		search := context.WithValue(ctx, classKey{}, "Doc")
		for _, q := range []string{"zorblax", "quuxify frobnitz", "w1 zorblax w2"} {
			v, err := m.Texts(search, []string{q}, fakeClassConfig{})
			if err != nil {
				t.Fatal(err)
			}
			qs = append(qs, v)
		}
		return b.String(), qs
	}
	memA, qa := run(objs)
	memB, qb := run(resent)
	if !strings.Contains(memA, `{"word":"zorblax","contexts":["`) {
		t.Fatalf("no contexts of zorblax remembered:\n%s", memA)
	}
	if memA != memB {
		t.Fatalf("memories differ:\n%s\nwant\n%s", memB, memA)
	}
	for i := range qa {
		if !slices.Equal(qa[i], qb[i]) {
			t.Errorf("query %d: different vectors", i)
		}
	}
}
