//go:build race

package lint

// Under the race detector (five to ten times slower) the corpus tests check a sample.
const (
	poolStride   = 20 // every poolStride-th corpus instance meets each fixed schema
	schemaStride = 8  // every schemaStride-th schema is linted or fixed
	raceEnabled  = true
)
