// Package lines reads text one line at a time with a bound on the length of
// a line, so that input without line breaks cannot make a reader hold it
// whole.
package lines

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrTooLong is wrapped by the error of a line longer than the bound given
// to ForEach; the error names the input, the line and the bound.
var ErrTooLong = errors.New("line too long")

// ForEach calls fn with every line of r (1-based line number, the line
// without its trailing "\n" or "\r\n"; a last line without "\n" loses a
// trailing "\r" too). name is the input in errors and what says what a line
// is ("an evaluation data line"). A line longer than max bytes is an error
// wrapping ErrTooLong; memory stays bounded by max. A read error is returned
// wrapped, naming the line it interrupted, which fn never sees. An error from
// fn stops the scan and is returned as is.
func ForEach(r io.Reader, name string, max int, what string, fn func(lineNo int, line string) error) error {
	br := bufio.NewReaderSize(r, min(64<<10, max+2))
	var long []byte // a line longer than br's buffer, gathered
	for lineNo := 1; ; lineNo++ {
		long = long[:0]
		chunk, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) > max+len("\r\n") {
				return tooLong(name, lineNo, max, what)
			}
			long = append(long, chunk...)
			chunk, err = br.ReadSlice('\n')
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: read: %w", name, lineNo, err)
		}
		line := chunk
		if len(long) > 0 {
			line = append(long, chunk...)
		}
		if err == io.EOF && len(line) == 0 {
			return nil
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > max {
			return tooLong(name, lineNo, max, what)
		}
		if ferr := fn(lineNo, string(line)); ferr != nil {
			return ferr
		}
		if err == io.EOF {
			return nil
		}
	}
}

// tooLong is the error of line lineNo of name, longer than max.
func tooLong(name string, lineNo, max int, what string) error {
	return fmt.Errorf("%s:%d: %w: more than %d bytes, the limit of %s", name, lineNo, ErrTooLong, max, what)
}
