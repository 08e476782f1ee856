//go:build !purego

package asciiscan

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// fast selects the AVX2 kernel, once; it is Fast.
var fast = cpu.X86.HasAVX2

// blockAVX2 is Block with AVX2 on the Size bytes at p.
//
//go:noescape
func blockAVX2(p *byte) (word, up, sent uint64, ascii bool)

// block is Block on this CPU.
func block(b string) (word, up, sent uint64, ascii bool) {
	if fast {
		return blockAVX2(unsafe.StringData(b))
	}
	return blockSWAR(b)
}
