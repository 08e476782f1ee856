//go:build !race

package skipgram

const raceEnabled = false
