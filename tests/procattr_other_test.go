//go:build unix && !linux

package e2e

import "syscall"

// procAttr puts a server in its own process group, so that stopping it stops
// all it started.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
