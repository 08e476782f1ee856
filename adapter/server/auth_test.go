package server

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestBeyondLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": false, "[::1]:8080": false, "localhost:8080": false, "127.0.0.2:1": false,
		":8080": true, "0.0.0.0:8080": true, "[::]:8080": true, "10.0.0.5:8080": true, "memory.internal:8080": true, "junk": true,
	} {
		if got := BeyondLoopback(addr); got != want {
			t.Errorf("BeyondLoopback(%q) = %v, want %v", addr, got, want)
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
		{Limits{Exposed: true, AuthToken: "x"}, "/passage/v1/embeddings need the bearer token"},
	} {
		var buf bytes.Buffer
		WarnExposed(slog.New(slog.NewTextHandler(&buf, nil)), ":8080", c.lim)
		if got := buf.String(); (c.want == "") != (got == "") || !strings.Contains(got, c.want) || (got != "" && !strings.Contains(got, "level=WARN")) {
			t.Errorf("%+v: %q, want a warning with %q", c.lim, got, c.want)
		}
	}
}
