package eval

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestVecMapCommandOutput checks that a program's output file gets its stdout
// only, its stderr going to the log, and that the input file is its stdin.
func TestVecMapCommandOutput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses /bin/sh")
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog.sh")
	script := "#!/bin/sh\necho warning: something >&2\nwhile read w; do echo \"$w 0.5 0.25\"; done\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "words.txt")
	if err := os.WriteFile(in, []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &vecmapRun{dir: dir}
	if err := r.command(context.Background(), cmdFiles{log: "p.log", out: "p.txt", in: in}, prog); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got, want := read("p.txt"), "alpha 0.5 0.25\nbeta 0.5 0.25\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	if got, want := read("p.log"), "warning: something\n"; got != want {
		t.Errorf("log %q, want %q", got, want)
	}
	// Without an output file, both streams go to the log.
	if err := r.command(context.Background(), cmdFiles{log: "q.log", in: in}, prog); err != nil {
		t.Fatal(err)
	}
	if got := read("q.log"); len(got) != len("warning: something\nalpha 0.5 0.25\nbeta 0.5 0.25\n") {
		t.Errorf("log without an output file: %q", got)
	}
}
