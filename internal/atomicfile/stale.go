package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// staleAge is how old a temporary file must be before removeStale may take
// it for an earlier writer's: a writer locks its temporary file right after
// creating it, so only that instant is unguarded.
const staleAge = time.Minute

// removeStale removes the temporary files of the target base in dir that an
// earlier writer left behind, killed before it renamed or removed them (a
// checkpoint's can be hundreds of megabytes): those named as WriteRaw names
// them, older than staleAge, whose lock (lockTemp) can be taken, so that no
// live writer holds them. Where locks are not supported nothing is removed.
// Failures are ignored: the write goes on either way.
func removeStale(dir, base string) {
	if !haveLocks {
		return // nothing could be told a dead writer's: no need to list dir
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := base + ".tmp"
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !allDigits(suffix) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < staleAge {
			continue
		}
		path := dir + string(filepath.Separator) + e.Name() // not Join: dir keeps its ".." (split)
		f, err := os.OpenFile(path, os.O_RDONLY, 0)
		if err != nil {
			continue
		}
		if lockTemp(f) == nil {
			os.Remove(path)
		}
		f.Close()
	}
}

// allDigits reports whether s is a non-empty string of ASCII digits, as
// os.CreateTemp puts in place of its pattern's "*".
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
