//go:build !race

package diff

// propertyPairStep samples schema-pairs for the property tests (every n-th pair).
const propertyPairStep = 3

// oracleShare divides the counts of generated pairs the oracle tests check (runPairs,
// TestClassPairs): 1 without the race detector, where the full counts and their
// committed stats run.
const oracleShare = 1

// corpusPairStep samples schema-pairs for TestSchemaPairs: every pair without the race
// detector (the committed stats are of all of them).
const corpusPairStep = 1
