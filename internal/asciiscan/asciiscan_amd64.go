//go:build !purego

package asciiscan

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// hasAVX2 selects the AVX2 kernel, once.
var hasAVX2 = cpu.X86.HasAVX2

// fast is Fast: the AVX2 kernel.
var fast = hasAVX2

// blockAVX2 is Block with AVX2 on the Size bytes at p.
//
//go:noescape
func blockAVX2(p *byte) (word, up, sent uint64, ascii bool)

// block is Block on this CPU.
func block(b string) (word, up, sent uint64, ascii bool) {
	if hasAVX2 {
		return blockAVX2(unsafe.StringData(b))
	}
	return blockSWAR(b)
}
