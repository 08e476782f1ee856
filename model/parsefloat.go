package model

import (
	"math"
	"strconv"
	"unsafe"
)

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloatPrefix parses the number starting at b[p] and ending at the next
// space, tab or the end of b; end is that position. ok is false when the
// token is not a number.
func parseFloatPrefix(b []byte, p int) (x float32, end int, ok bool) {
	i := p
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	i, mant, nd := scanDigits(b, i, 0)
	exp := 0
	if i < len(b) && b[i] == '.' {
		var nf int
		i, mant, nf = scanDigits(b, i+1, mant)
		nd += nf
		exp -= nf
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') && nd > 0 {
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		e, ed := 0, 0
		for ; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			if e < 100000 {
				e = e*10 + int(c)
			}
			ed++
		}
		if ed == 0 {
			return 0, tokenEnd(b, i), false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i < len(b) && b[i] != ' ' && b[i] != '\t' || nd == 0 || nd > 19 || mant > 1<<53 || exp < -22 || exp > 22 {
		// Not the simple form: let strconv decide (it also knows nan, inf,
		// hexadecimal and long mantissas).
		end = tokenEnd(b, i)
		x, ok = parseFloatSlow(b[p:end])
		return x, end, ok
	}
	f := float64(mant)
	if exp < 0 {
		f /= pow10[-exp]
	} else {
		f *= pow10[exp]
	}
	if neg {
		f = -f
	}
	// f is the correctly rounded float64; rounding it to float32 is correct
	// unless f sits exactly on a float32 rounding boundary (double rounding)
	// or is below the float32 normal range. |f| ≤ 2⁵³·10²² < MaxFloat32, so
	// the fast path cannot overflow.
	if bits := math.Float64bits(f); bits&(1<<29-1) == 1<<28 || mant != 0 && math.Abs(f) < 0x1p-126 {
		x, ok = parseFloatSlow(b[p:i])
		return x, i, ok
	}
	return float32(f), i, true
}

// scanDigits appends the decimal digits starting at b[i] to mant (wrapping
// beyond 19 digits, which the caller rejects) and returns the position after
// them and their number.
func scanDigits(b []byte, i int, mant uint64) (int, uint64, int) {
	n := 0
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		mant = mant*10 + uint64(c)
		n++
	}
	return i, mant, n
}

// tokenEnd returns the position of the first space or tab at or after i.
func tokenEnd(b []byte, i int) int {
	for i < len(b) && b[i] != ' ' && b[i] != '\t' {
		i++
	}
	return i
}

// parseFloatSlow parses b with strconv without copying it.
func parseFloatSlow(b []byte) (float32, bool) {
	if len(b) == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 32)
	if err != nil {
		// A value out of float32 range is reported as ±Inf with ErrRange:
		// keep it so that the caller reports "not finite".
		var ne *strconv.NumError
		if asNumError(err, &ne) && ne.Err == strconv.ErrRange && math.IsInf(f, 0) {
			return float32(f), true
		}
		return 0, false
	}
	return float32(f), true
}

func asNumError(err error, target **strconv.NumError) bool {
	ne, ok := err.(*strconv.NumError)
	if ok {
		*target = ne
	}
	return ok
}

// finite32 reports whether x is neither NaN nor ±Inf.
func finite32(x float32) bool {
	return math.Float32bits(x)&0x7f800000 != 0x7f800000
}
