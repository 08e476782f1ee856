//go:build !amd64 || purego

package asciiscan

// fast is Fast: no vector kernel here.
const fast = false

// block is Block: plain Go here.
func block(b string) (word, up, sent uint64, ascii bool) { return blockSWAR(b) }
