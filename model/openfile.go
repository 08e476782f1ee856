package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular reports a path that is not a regular file (a device such as
// /dev/zero, a FIFO, a directory, a socket): every loader refuses it.
var ErrNotRegular = errors.New("not a regular file")

// FileKind names the type of a file that is not a regular one for messages:
// "a directory", "a named pipe (FIFO)", "a device", "a socket", "a symbolic
// link", else "a special file".
func FileKind(mode fs.FileMode) string {
	switch t := mode.Type(); {
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "a device"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// OpenRegular opens path for reading only if it is a regular file (after
// symbolic links). It opens without blocking (a FIFO with no writer would
// otherwise block open) and checks the open file, so a path swapped in
// between cannot slip through.
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w: it is %s", path, ErrNotRegular, FileKind(st.Mode()))
	}
	return f, st, nil
}

// readWeights reads one weights file from r: the header, then exactly the
// payload and checksum it declares (never more than limit bytes in all, when
// limit ≥ 0), then expects the end of the data.
func readWeights(r io.Reader, limit int64) ([]byte, error) {
	head := make([]byte, headerLen)
	if n, err := io.ReadFull(r, head); err != nil {
		if n < len(weightsMagic) || string(head[:len(weightsMagic)]) != weightsMagic {
			return nil, errors.New("not a text2vec-am weights file (bad magic bytes)")
		}
		return nil, fmt.Errorf("truncated: %d bytes, the header alone takes %d", n, headerLen+4)
	}
	if string(head[:len(weightsMagic)]) != weightsMagic {
		return nil, errors.New("not a text2vec-am weights file (bad magic bytes)")
	}
	plen := binary.LittleEndian.Uint64(head[12:])
	const maxPayload = 1 << 40 // sanity: a model is gigabytes at most
	if plen > maxPayload || (limit >= 0 && plen+headerLen+4 > uint64(limit)) {
		return nil, fmt.Errorf("truncated: the header announces %d payload bytes, the file holds %d", plen, max(limit-headerLen-4, 0))
	}
	if limit >= 0 { // a file: its size matches; it must also fit in memory
		if err := checkLoadSize(plen); err != nil {
			return nil, err
		}
	}
	// Grow as the data arrives: a header may lie about the size.
	var buf bytes.Buffer
	buf.Grow(headerLen + int(min(plen+4, 64<<20)))
	buf.Write(head)
	if n, err := io.CopyN(&buf, r, int64(plen)+4); err != nil {
		return nil, fmt.Errorf("truncated: the header announces %d payload bytes, the file holds %d", plen, max(n-4, 0))
	}
	data := buf.Bytes()
	var one [1]byte
	if n, _ := r.Read(one[:]); n > 0 {
		return nil, errors.New("unexpected bytes after the payload")
	}
	return data, nil
}
