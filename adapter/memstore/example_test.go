package memstore_test

import (
	"context"
	"fmt"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// A server vectorizes through its store, whichever memory is behind it.
func ExampleLocal() {
	m, _ := testmodel.New(testmodel.DefaultSpec())
	mem, _ := memory.Open("", memory.DefaultOptions()) // "" keeps it in RAM
	v, _ := vectorizer.New(m, mem, vectorizer.DefaultOptions())
	var store memstore.Store = memstore.NewLocal(mem)
	defer store.Close()
	texts := []string{"f1 f2 zqjargon.", "f3 zqjargon f4."}
	_, errs, err := store.VectorizeBatch(context.Background(), v, "", texts, vectorizer.TaskPassage, vectorizer.DefaultOptions())
	st := store.Stats()
	fmt.Println(err, errs, st.Backend, st.Memory.Passages, st.Memory.Contexts)
	// Output: <nil> [<nil> <nil>] local 2 2
}
