package model

import (
	"encoding/binary"
	"fmt"
	"math"
)

// int4Max is the largest magnitude of a stored 4-bit value.
const int4Max = 7

// int4Clips is how many clips int4Scale tries: the fractions 1, 0.95, …,
// 0.5 of a row's max |x| (1 first: never worse than no clipping).
const int4Clips = 11

// int4RowBytes is the size of one row's values: two to a byte.
func int4RowBytes(dim int) int { return (dim + 1) / 2 }

// quantInt4 is round(v / scale) clamped to −7…7 (0 when scale is 0).
func quantInt4(v, scale float32) int {
	if scale == 0 {
		return 0
	}
	q := math.Round(float64(v / scale))
	return int(max(-int4Max, min(int4Max, q)))
}

// int4Scale returns the scale of the clip (of int4Clips) with the least
// squared error over row.
func int4Scale(row []float32) float32 {
	var mx float32
	for _, v := range row {
		mx = max(mx, float32(math.Abs(float64(v))))
	}
	best, bestErr := mx/int4Max, math.Inf(1)
	for i := range int4Clips {
		scale := (1 - 0.05*float32(i)) * mx / int4Max
		var e float64
		for _, v := range row {
			d := float64(v - float32(quantInt4(v, scale))*scale)
			e += d * d
		}
		if e < bestErr {
			best, bestErr = scale, e
		}
	}
	return best
}

// appendInt4Row appends row's scale and its values, the even index in the
// low nibble (two's complement); an odd row length leaves the last high
// nibble zero.
func appendInt4Row(b []byte, row []float32) []byte {
	scale := int4Scale(row)
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(scale))
	for k := 0; k < len(row); k += 2 {
		lo := quantInt4(row[k], scale)
		hi := 0
		if k+1 < len(row) {
			hi = quantInt4(row[k+1], scale)
		}
		b = append(b, byte(lo&0xf)|byte(hi&0xf)<<4)
	}
	return b
}

// nibble returns the signed value of a 4-bit two's complement nibble.
func nibble(v byte) float32 { return float32(int8(v<<4) >> 4) }

// decodeInt4 fills x (rows × dim) from p, the rows as appendInt4Row wrote
// them. A negative or non-finite scale, a value of −8 and a non-zero padding
// nibble (odd dim) are errors naming the row.
func decodeInt4(p []byte, dim int, x []float32) error {
	rec := 4 + int4RowBytes(dim)
	for r := 0; r < len(x)/dim; r++ {
		b := p[r*rec : (r+1)*rec]
		scale := math.Float32frombits(binary.LittleEndian.Uint32(b))
		if !finite32(scale) || scale < 0 {
			return fmt.Errorf("row %d has scale %v", r, scale)
		}
		if dim%2 == 1 && b[rec-1]>>4 != 0 {
			return fmt.Errorf("row %d: padding nibble %d, want 0", r, b[rec-1]>>4)
		}
		row := x[r*dim : (r+1)*dim]
		for k := range row {
			v := b[4+k/2]
			if k%2 == 1 {
				v >>= 4
			}
			q := nibble(v & 0xf)
			if q < -int4Max {
				return fmt.Errorf("row %d: value %d is %v, outside −7…7", r, k, q)
			}
			row[k] = q * scale
		}
	}
	return nil
}
