package memory

import "encoding/binary"

// appendOffer appends a recOffer record as format versions 1 and 2 wrote it.
func appendOffer(dst []byte, word string, seen uint64, slot int, context string) []byte {
	dst = append(dst, recOffer)
	dst = appendString(dst, word)
	dst = binary.AppendUvarint(dst, seen)
	dst = binary.AppendUvarint(dst, uint64(slot+1))
	if slot >= 0 {
		dst = appendString(dst, context)
	}
	return dst
}

// appendWordStateV2 appends a recWord record as format versions 1 and 2 wrote it.
func appendWordStateV2(dst []byte, word string, seen uint64, contexts []string) []byte {
	dst = append(dst, recWord)
	dst = appendString(dst, word)
	dst = binary.AppendUvarint(dst, seen)
	dst = binary.AppendUvarint(dst, uint64(len(contexts)))
	for _, c := range contexts {
		dst = appendString(dst, c)
	}
	return dst
}
