package cli

import (
	"flag"
	"io"
	"os"
)

// QuietFlag declares the --quiet flag of the commands that draw progress on
// stderr (train-embeddings, train) on fs, setting quiet.
func QuietFlag(fs *flag.FlagSet, quiet *bool) {
	fs.BoolVar(quiet, "quiet", false, "no progress bar or progress lines on stderr (log lines stay)")
}

// IsTerminal reports whether w is a terminal (a character device), where a
// progress bar may redraw its line; to a file or a pipe, progress is written
// as whole lines, now and then.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
