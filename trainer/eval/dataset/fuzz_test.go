package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loaders are the data set loaders, each run on a path.
var loaders = []func(path string) error{
	func(p string) error { _, err := LoadWordPairs(p); return err },
	func(p string) error { _, err := LoadChimeras(p); return err },
	func(p string) error { _, err := LoadWordList(p, true); return err },
	func(p string) error { _, _, err := LoadNRC(p); return err },
	func(p string) error { _, err := LoadSemEval(p); return err },
	func(p string) error { _, err := LoadDocuments(p); return err },
	func(p string) error { _, err := LoadQueries(p); return err },
	func(p string) error { _, err := LoadNonceDefinitions(p); return err },
}

// FuzzLoaders: whatever an evaluation data file holds, each loader returns
// its content or an error naming the file.
func FuzzLoaders(f *testing.F) {
	for i, s := range []string{
		"love\tsex\t6.77\r\n\n# comment\ntiger cat 7.35\n",
		"102\tliver p\xe2t\xe9 ___ and lettuce @@ a stick of ___ with veg \trhubarb,onion\t1.86,3.14\n",
		";;; header\r\n; note\r\n\r\nAbound\r\na+\r\n",
		"abandon\tnegative\t1\nabandon\tpositive\t0\nable\tpositive\t1\nable\tjoy\t1\n",
		"0.984\tloves\n-0.5\tcant waitttt\n",
		`{"id": "a", "text": "alpha"}` + "\n" + `{"id": "b", "text": "beta"}` + "\n",
		`{"id": "q", "text": "alpha?", "relevant": ["a"]}` + "\n",
		"wug\tA ___ is a small bird.\n",
	} {
		f.Add([]byte(s), uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		path := filepath.Join(t.TempDir(), "data.txt")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := loaders[int(which)%len(loaders)](path); err != nil && !strings.Contains(err.Error(), path) {
			t.Fatalf("loader %d: err = %v, want it to name %s", int(which)%len(loaders), err, path)
		}
	})
}
