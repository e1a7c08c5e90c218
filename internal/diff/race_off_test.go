//go:build !race

package diff

// propertyPairStep samples schema-pairs for the property tests (every n-th pair).
const propertyPairStep = 3
