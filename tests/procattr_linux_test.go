//go:build linux

package e2e

import "syscall"

// procAttr puts a server in its own process group (so that stopping it
// stops all it started) and has the kernel kill it if the test process dies
// without cleaning up (a go test timeout, a crash).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
