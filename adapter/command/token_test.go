package command

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o600)
		return p
	}
	if tok, err := readToken(write("ok", "  s3cret\n")); err != nil || tok != "s3cret" {
		t.Errorf("token file: %q %v", tok, err)
	}
	for name, body := range map[string]string{"empty": " \n", "two": "a b", "long": strings.Repeat("x", maxTokenBytes+1)} {
		if _, err := readToken(write(name, body)); err == nil || !strings.Contains(err.Error(), "--auth-token-file") {
			t.Errorf("%s: %v", name, err)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		if _, err := readToken(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("fifo: %v", err)
		}
	}
}
