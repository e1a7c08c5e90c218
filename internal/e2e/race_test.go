//go:build race

package e2e

// raceEnabled: the tests run under the race detector, so the binary is built with it too,
// and the generated inputs are smaller.
const raceEnabled = true
