package outpath_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/text2vec-am/text2vec-am/internal/outpath"
)

// An output spelt through a link to a directory lies below that directory,
// under the names the directory has on disk.
func ExampleBelow() {
	dir, err := os.MkdirTemp("", "outpath-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	corpus := filepath.Join(dir, "corpus")
	os.MkdirAll(filepath.Join(corpus, "texts"), 0o755)
	os.Symlink(filepath.Join(corpus, "texts"), filepath.Join(dir, "shortcut"))

	for _, out := range []string{filepath.Join(dir, "shortcut", "model.am"), filepath.Join(dir, "model.am")} {
		rel, ok := outpath.Below(out, corpus)
		fmt.Printf("%q %v\n", rel, ok)
	}
	// Output:
	// "texts/model.am" true
	// "" false
}
