package adapter

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestBeyondLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": false, "[::1]:8080": false, "localhost:8080": false, "127.0.0.2:1": false,
		":8080": true, "0.0.0.0:8080": true, "[::]:8080": true, "10.0.0.5:8080": true, "memory.internal:8080": true, "junk": true,
	} {
		if got := beyondLoopback(addr); got != want {
			t.Errorf("beyondLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

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

func TestWarnExposed(t *testing.T) {
	for _, c := range []struct {
		lim  Limits
		want string
	}{
		{Limits{}, ""},
		{Limits{Exposed: true}, "WITHOUT AN AUTH TOKEN"},
		{Limits{Exposed: true, AuthToken: "x"}, "need the bearer token"},
	} {
		var buf bytes.Buffer
		warnExposed(slog.New(slog.NewTextHandler(&buf, nil)), ":8080", c.lim)
		if got := buf.String(); (c.want == "") != (got == "") || !strings.Contains(got, c.want) || (got != "" && !strings.Contains(got, "level=WARN")) {
			t.Errorf("%+v: %q, want a warning with %q", c.lim, got, c.want)
		}
	}
}
