//go:build race

package diff

// propertyPairStep samples schema-pairs for the property tests (every n-th pair). The race
// detector makes each comparison several times slower; the sample is sparser, the checks
// are the same.
const propertyPairStep = 15
