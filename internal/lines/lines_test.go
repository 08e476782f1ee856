package lines

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// collect reads r with a bound of max bytes and returns the lines read.
func collect(r io.Reader, max int) ([]string, error) {
	var got []string
	err := ForEach(r, "in.txt", max, "a test line", func(n int, line string) error {
		if n != len(got)+1 {
			return errors.New("line numbers out of order")
		}
		got = append(got, line)
		return nil
	})
	return got, err
}

func TestForEach(t *testing.T) {
	got, err := collect(strings.NewReader("a\r\nbb\n\nc\rc\r"), 3)
	if err != nil || strings.Join(got, "|") != "a|bb||c\rc" {
		t.Fatalf("lines %q, err %v; want a|bb||c\\rc", got, err)
	}
	// A bound above the reader's buffer: long lines are gathered, and still bounded.
	big := strings.Repeat("y", 100<<10)
	if got, err := collect(strings.NewReader(big+"\r\n"+big), len(big)); err != nil || len(got) != 2 || got[0] != big || got[1] != big {
		t.Errorf("two lines of 100 KiB: %d lines, err %v", len(got), err)
	}
	if _, err := collect(strings.NewReader("ok\n"+big+"y\n"), len(big)); !errors.Is(err, ErrTooLong) || !strings.Contains(err.Error(), "in.txt:2:") {
		t.Errorf("a line of 100 KiB + 1 over a bound of 100 KiB: err %v", err)
	}
	// A line of exactly max bytes reads, with either line ending.
	for _, end := range []string{"\n", "\r\n", ""} {
		if got, err := collect(strings.NewReader("x\nabcd"+end), 4); err != nil || len(got) != 2 || got[1] != "abcd" {
			t.Errorf("a line of max bytes ending %q: lines %q, err %v", end, got, err)
		}
	}
	// A longer one fails naming the input, the line, the bound and what a line is.
	for _, end := range []string{"\n", "\r\n", ""} {
		got, err := collect(strings.NewReader("ok\nabcde"+end), 4)
		if !errors.Is(err, ErrTooLong) || !strings.Contains(err.Error(), "in.txt:2:") ||
			!strings.Contains(err.Error(), "more than 4 bytes, the limit of a test line") || len(got) != 1 {
			t.Errorf("a line of max+1 bytes ending %q: lines %q, err %v", end, got, err)
		}
	}
}

func TestForEachErrors(t *testing.T) {
	stop := errors.New("stop")
	err := ForEach(strings.NewReader("a\nb\n"), "in.txt", 10, "a line", func(int, string) error { return stop })
	if err != stop {
		t.Errorf("fn's error: got %v, want it returned as is", err)
	}
	boom := errors.New("disk on fire")
	err = ForEach(io.MultiReader(strings.NewReader("a\nb\n"), iotest.ErrReader(boom)), "in.txt", 10, "a line", func(int, string) error { return nil })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "in.txt:3:") {
		t.Errorf("read error: got %v, want it wrapped naming in.txt:3", err)
	}
	// A line the error interrupts is not passed on as a line.
	got, err := collect(io.MultiReader(strings.NewReader("a\nw\tpart"), iotest.ErrReader(boom)), 10)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "in.txt:2:") || len(got) != 1 {
		t.Errorf("read error inside line 2: lines %q, err %v; want only line 1 and the error naming in.txt:2", got, err)
	}
}
