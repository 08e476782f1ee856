package memory

// scanRecords decodes the records in b (after the header of a file of the given
// format version) and calls fn for each. It returns the number of bytes of b
// that hold intact records; when that is less than len(b), err says what is
// wrong with the rest.
func scanRecords(b []byte, version byte, fn func(record) error) (good int, err error) {
	for good < len(b) {
		p, size, err := nextRecord(b[good:])
		if err != nil {
			return good, err
		}
		r, err := decodeRecord(p, version)
		if err != nil {
			return good, err
		}
		if err := fn(r); err != nil {
			return good, err
		}
		good += size
	}
	return good, nil
}
