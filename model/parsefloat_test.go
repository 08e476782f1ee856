package model

// parseFloat32 parses a decimal number without allocating. The common form of
// embedding files ([+-]digits[.digits][e[+-]digits] with at most 19 digits) is
// handled by Clinger's fast path (correctly rounded in float64, then to float32
// unless that second rounding could differ from a direct one);
// anything else, including "nan" and "inf", goes through strconv.ParseFloat on
// the same bytes. ok is false when b is not a number.
func parseFloat32(b []byte) (float32, bool) {
	x, end, ok := parseFloatPrefix(b, 0)
	if !ok || end != len(b) {
		return 0, false
	}
	return x, true
}
