//go:build !race

package schematest

// raceEnabled lightens the corpus tests under the race detector.
const raceEnabled = false
