// Package lines reads text one line at a time with a bound on the length of
// a line, so that input without line breaks cannot make a reader hold it
// whole.
package lines

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// ErrTooLong is wrapped by the error of a line longer than the bound given
// to ForEach; the error names the input, the line and the bound.
var ErrTooLong = errors.New("line too long")

// ForEach calls fn with every line of r (1-based line number, the line
// without its trailing "\n" or "\r\n"). name is the input in errors and what
// says what a line is ("an evaluation data line"). A line longer than max
// bytes is an error wrapping ErrTooLong; memory stays bounded by max. A read
// error names the line; an error from fn stops the scan and is returned as is.
func ForEach(r io.Reader, name string, max int, what string, fn func(lineNo int, line string) error) error {
	sc := bufio.NewScanner(r)
	// Room for a line of max bytes and its "\r\n"; a longer line fails with
	// bufio.ErrTooLong, or below when only its line ending fitted.
	sc.Buffer(make([]byte, 0, min(64<<10, max+2)), max+len("\r\n"))
	lineNo := 0
	for sc.Scan() {
		lineNo++
		if len(sc.Bytes()) > max {
			return tooLong(name, lineNo, max, what)
		}
		if err := fn(lineNo, sc.Text()); err != nil {
			return err
		}
	}
	err := sc.Err()
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		return tooLong(name, lineNo+1, max, what)
	case err != nil:
		return fmt.Errorf("%s:%d: %w", name, lineNo+1, err)
	}
	return nil
}

// tooLong is the error of line lineNo of name, longer than max.
func tooLong(name string, lineNo, max int, what string) error {
	return fmt.Errorf("%s:%d: %w: more than %d bytes, the limit of %s", name, lineNo, ErrTooLong, max, what)
}
