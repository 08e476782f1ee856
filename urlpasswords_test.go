package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/cli"
)

// TestURLPasswordsNeverShown runs every command with a flag that takes a URL
// with a URL holding a password (user:secret@): one that does not parse, one
// without its scheme, and one naming a server that does not answer. Each
// fails, and the password is never in what it prints.
func TestURLPasswordsNeverShown(t *testing.T) {
	dir := t.TempDir()
	urls := []string{"http://user:secret@host:bad", "user:secret@host", "http://user:secret@exa mple.com",
		"http://user:secret@127.0.0.1:1/ready"}
	entries := []struct {
		args func(u string) []string
		// parsing: only URLs that do not parse are given, as one that does
		// would start the server
		parsing bool
	}{
		{func(u string) []string { return []string{"healthcheck", "--url", u} }, false},
		{func(u string) []string { return []string{"refresh", "--weaviate", u, "--class", "Doc"} }, false},
		{func(u string) []string {
			return []string{"refresh", "--weaviate", "http://127.0.0.1:1", "--vectorizer", u, "--class", "Doc"}
		}, false},
		{func(u string) []string {
			return []string{"memory", "rebuild", "--weaviate", u, "--class", "Doc", "--memory-dir", filepath.Join(dir, "m")}
		}, false},
		{func(u string) []string {
			return []string{"memory", "rebuild", "--weaviate", "http://127.0.0.1:1", "--class", "Doc", "--memory-weaviate", u}
		}, false},
		{func(u string) []string {
			return []string{"memory", "delete", "--memory-weaviate", u, "--class", "Doc", "--yes"}
		}, false},
		{func(u string) []string { return []string{"serve", "--memory-weaviate", u, "--addr", "127.0.0.1:0"} }, true},
		{func(u string) []string {
			return []string{"serve", "--memory-witness", u, "--memory-dir", filepath.Join(dir, "w"),
				"--weighting", "sif-collection", "--addr", "127.0.0.1:0"}
		}, true},
	}
	for _, e := range entries {
		for i, u := range urls {
			if e.parsing && i == len(urls)-1 {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			var out, errb bytes.Buffer
			code := cli.Main(ctx, "text2vec-am", commands(), e.args(u), &out, &errb)
			cancel()
			if code == 0 || strings.Contains(out.String()+errb.String(), "secret") {
				t.Errorf("text2vec-am %q: exit %d, stdout %q, stderr %q; want an error without the password",
					e.args(u), code, out.String(), errb.String())
			}
		}
	}
}
