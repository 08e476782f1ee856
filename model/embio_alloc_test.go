package model

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// allocatedBy returns the bytes the heap allocated while f ran.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadEmbeddingsHostileSizes: a small file whose header declares far
// more than it holds is an error, and reading it allocates memory in
// proportion to the file (plus a bounded reserve), not to the header: a
// 27-byte binary file declaring 10⁹ rows of 16,384 values used to reserve
// 64 GB and end the program ("fatal error: runtime: out of memory"), and a
// text file of blank lines reserved a vector per line.
func TestReadEmbeddingsHostileSizes(t *testing.T) {
	const limit = 256 << 20
	cases := []struct{ name, data string }{
		{"binary, 10⁹ rows of 16384", "1000000000 16384\nw \x01\x02\x03\x04"},
		{"binary, 10⁹ rows of 1000", "1000000000 1000\nw \x01\x02\x03\x04"},
		{"text, blank lines", "1 4096\n" + strings.Repeat("\n", 256<<10)},
		{"headerless text, blank lines", "w" + strings.Repeat(" 0", 4096) + "\n" + strings.Repeat("\n", 256<<10) + "x 1"},
	}
	for _, c := range cases {
		var err error
		n := allocatedBy(func() { _, err = ReadEmbeddings(bytes.NewReader([]byte(c.data)), "hostile") })
		if err == nil {
			t.Errorf("%s: no error", c.name)
		} else if !strings.HasPrefix(err.Error(), "hostile") {
			t.Errorf("%s: error %q does not name the input", c.name, err)
		}
		if n > limit {
			t.Errorf("%s: reading %d bytes allocated %d MB (limit %d MB)", c.name, len(c.data), n>>20, limit>>20)
		}
	}
}
