//go:build race

package diff

// propertyPairStep samples schema-pairs for the property tests (every n-th pair). The race
// detector makes each comparison several times slower; the sample is sparser, the checks
// are the same.
const propertyPairStep = 15

// oracleShare divides the counts of generated pairs the oracle tests check (runPairs,
// TestClassPairs) under the race detector. Those tests compare each pair on one goroutine
// and spend most of their time in the brute-force oracle, where the detector can find
// nothing and runs many times slower; a tenth of the pairs still catches a comparison that
// claims compatible wrongly (a planted one was). The tests of what runs concurrently (the
// shared automata, the hash table, proofs beside the walk, the corpus pairs' workers) run
// at full strength, and the full counts run without -race.
const oracleShare = 10

// corpusPairStep samples schema-pairs for TestSchemaPairs under the race detector (every
// n-th pair): the pairs still run on GOMAXPROCS workers sharing the loader and the automata,
// which is what the detector watches; all pairs, and their committed stats, run without it.
const corpusPairStep = 3
