//go:build !race

package diff

// propertyPairStep samples schema-pairs for the property tests (every n-th pair).
const propertyPairStep = 3

// oracleShare divides the counts of generated pairs the oracle tests check (runPairs,
// TestClassPairs): 1 without the race detector, where the full counts and their
// committed stats run.
const oracleShare = 1
