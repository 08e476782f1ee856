//go:build !race

package vectorizer

// raceEnabled: the race detector makes sync.Pool drop items, so allocation counts differ.
const raceEnabled = false
