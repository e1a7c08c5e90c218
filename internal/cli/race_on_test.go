//go:build race

package cli

// raceEnabled: the tests run under the race detector.
const raceEnabled = true
