//go:build race

package skipgram

const raceEnabled = true
