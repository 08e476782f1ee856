//go:build !linux

package model

// physicalMemory returns the machine's RAM in bytes (0 when unknown).
func physicalMemory() uint64 { return 0 }
