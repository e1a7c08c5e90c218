//go:build race

package coverage

// raceEnabled lightens the corpus tests under the race detector.
const raceEnabled = true
