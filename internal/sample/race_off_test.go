//go:build !race

package sample

// raceEnabled lightens the corpus tests under the race detector (about ten times slower).
const raceEnabled = false
