//go:build race

package infer

// raceEnabled lightens the corpus tests under the race detector (about ten times slower):
// every schema is still checked, but with fewer variants, and the stats are not compared.
const raceEnabled = true
