package corpus

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"unsafe"
)

// The encoded-corpus file, little endian throughout:
//
//	magic "T2VAMIDS", uint32 version (1), uint32 zero,
//	uint64 vocabulary length, uint64 vocabulary fingerprint (FNV-1a over the words),
//	uint64 number of ids n, uint64 number of offsets m,
//	n int32 ids, zero padding to a multiple of 8 bytes, m int64 offsets.
const (
	encodedMagic   = "T2VAMIDS"
	encodedVersion = 1
	headerSize     = 48
)

// fingerprint hashes the words of v in order, so that an encoded file is only
// ever read with the vocabulary it was written with.
func fingerprint(v *Vocab) uint64 {
	h := fnv.New64a()
	for _, w := range v.Words {
		io.WriteString(h, w)
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// WriteEncoded writes e, encoded with vocabulary v, to path atomically (a
// temporary file in the same directory, then a rename).
func WriteEncoded(path string, e *Encoded, v *Vocab) (err error) {
	if err := e.validate(int64(v.Len())); err != nil {
		return fmt.Errorf("write encoded corpus %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write encoded corpus %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 1<<20)
	hdr := make([]byte, 0, headerSize)
	hdr = append(hdr, encodedMagic...)
	hdr = binary.LittleEndian.AppendUint32(hdr, encodedVersion)
	hdr = binary.LittleEndian.AppendUint32(hdr, 0)
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(v.Len()))
	hdr = binary.LittleEndian.AppendUint64(hdr, fingerprint(v))
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(e.IDs)))
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(e.Offsets)))
	w.Write(hdr)
	buf := make([]byte, 0, 1<<16)
	for i, id := range e.IDs {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(id))
		if len(buf) == cap(buf) || i == len(e.IDs)-1 {
			w.Write(buf)
			buf = buf[:0]
		}
	}
	if len(e.IDs)%2 == 1 {
		w.Write([]byte{0, 0, 0, 0})
	}
	for i, off := range e.Offsets {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(off))
		if len(buf) == cap(buf) || i == len(e.Offsets)-1 {
			w.Write(buf)
			buf = buf[:0]
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write encoded corpus %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes 0600 files
		return fmt.Errorf("write encoded corpus %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write encoded corpus %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write encoded corpus %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write encoded corpus %s: %w", path, err)
	}
	return nil
}

// Mapped is an encoded corpus read from a file by OpenEncoded. On systems with
// mmap the IDs and Offsets point into a read-only mapping of the file: never
// write to them, and do not use them after Close.
type Mapped struct {
	Encoded
	data  []byte
	unmap func([]byte) error
}

// Close releases the mapping.
func (m *Mapped) Close() error {
	if m.unmap == nil || m.data == nil {
		return nil
	}
	err := m.unmap(m.data)
	m.data, m.IDs, m.Offsets = nil, nil, nil
	return err
}

// littleEndian reports whether the host stores integers little endian, so that
// the file's bytes can be used as int32 and int64 values in place.
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// OpenEncoded memory-maps an encoded corpus written by WriteEncoded. v must be
// the vocabulary it was written with (same words in the same order); the file
// is checked against it, and every id and offset is validated.
func OpenEncoded(path string, v *Vocab) (*Mapped, error) {
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("open encoded corpus %s: %w", path, err)
	}
	m := &Mapped{data: data, unmap: unmap}
	if err := m.parse(v); err != nil {
		m.Close()
		return nil, fmt.Errorf("open encoded corpus %s: %w", path, err)
	}
	return m, nil
}

// parse checks the header and sets IDs and Offsets over m.data.
func (m *Mapped) parse(v *Vocab) error {
	d := m.data
	if len(d) < headerSize || string(d[:8]) != encodedMagic {
		return errors.New("not an encoded corpus (bad magic)")
	}
	le := binary.LittleEndian
	if ver := le.Uint32(d[8:]); ver != encodedVersion {
		return fmt.Errorf("version %d, this build reads %d", ver, encodedVersion)
	}
	vlen, fp := le.Uint64(d[16:]), le.Uint64(d[24:])
	if vlen != uint64(v.Len()) || fp != fingerprint(v) {
		return fmt.Errorf("written for another vocabulary (%d words), not this one (%d words)", vlen, v.Len())
	}
	n, m8 := le.Uint64(d[32:]), le.Uint64(d[40:])
	if n > uint64(len(d)) || m8 > uint64(len(d)) {
		return fmt.Errorf("header claims %d ids and %d offsets, file has %d bytes", n, m8, len(d))
	}
	idBytes := (4*n + 7) &^ 7
	if want := headerSize + idBytes + 8*m8; want != uint64(len(d)) {
		return fmt.Errorf("file has %d bytes, header implies %d (truncated or corrupt)", len(d), want)
	}
	idData, offData := d[headerSize:headerSize+4*n], d[headerSize+idBytes:]
	if littleEndian() {
		if n > 0 {
			m.IDs = unsafe.Slice((*int32)(unsafe.Pointer(&idData[0])), n)
		}
		if m8 > 0 {
			m.Offsets = unsafe.Slice((*int64)(unsafe.Pointer(&offData[0])), m8)
		}
	} else {
		m.IDs = make([]int32, n)
		for i := range m.IDs {
			m.IDs[i] = int32(le.Uint32(idData[4*i:]))
		}
		m.Offsets = make([]int64, m8)
		for i := range m.Offsets {
			m.Offsets[i] = int64(le.Uint64(offData[8*i:]))
		}
	}
	return m.validate(int64(v.Len()))
}
