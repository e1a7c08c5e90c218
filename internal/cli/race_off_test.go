//go:build !race

package cli

// raceEnabled: the tests run without the race detector.
const raceEnabled = false
