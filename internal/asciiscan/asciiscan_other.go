//go:build !amd64 || purego

package asciiscan

// block is Block: plain Go here.
func block(b string) (word, up, sent uint64, ascii bool) { return blockSWAR(b) }
