package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testfiles"
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
	read := func(path string) error { _, err := readToken(path); return err }
	testfiles.RefusesNonRegular(t, "readToken", read, func(f testfiles.File, err error) {
		if !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a %s: %v, want it refused as not a regular file", f.Kind, err)
		}
	})
}
