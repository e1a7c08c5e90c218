//go:build !race

package infer

// raceEnabled lightens the corpus tests under the race detector (about ten times slower).
const raceEnabled = false
