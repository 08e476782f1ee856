package model

import "strconv"

func strconvAppend(b []byte, x float32, fmt byte, prec int) []byte {
	return strconv.AppendFloat(b, float64(x), fmt, prec, 32)
}

func parseStd(s string) (float32, error) {
	f, err := strconv.ParseFloat(s, 32)
	return float32(f), err
}
