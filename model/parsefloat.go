package model

import (
	"math"
	"strconv"
	"unsafe"
)

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat32 parses a decimal number without allocating. The common form of
// embedding files ([+-]digits[.digits][e[+-]digits] with at most 19 significant
// digits) is handled by Clinger's fast path (exact in float64, then rounded to
// float32); anything else, including "nan" and "inf", goes through
// strconv.ParseFloat on the same bytes. ok is false when b is not a number.
func parseFloat32(b []byte) (float32, bool) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	digits, exp := 0, 0
	sawDigit := false
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		sawDigit = true
		if digits == 0 && b[i] == '0' {
			continue
		}
		if digits >= 19 {
			return parseFloatSlow(b)
		}
		mant = mant*10 + uint64(b[i]-'0')
		digits++
	}
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			sawDigit = true
			if digits == 0 && b[i] == '0' {
				exp--
				continue
			}
			if digits >= 19 {
				return parseFloatSlow(b)
			}
			mant = mant*10 + uint64(b[i]-'0')
			digits++
			exp--
		}
	}
	if !sawDigit {
		return parseFloatSlow(b)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		if i == len(b) {
			return 0, false
		}
		e := 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if e > 10000 {
				return parseFloatSlow(b)
			}
			e = e*10 + int(b[i]-'0')
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(b) {
		return 0, false
	}
	if mant > 1<<53 || exp < -22 || exp > 22 {
		return parseFloatSlow(b)
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
	if mant != 0 && math.Abs(f) > math.MaxFloat32 {
		return parseFloatSlow(b)
	}
	return float32(f), true
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
