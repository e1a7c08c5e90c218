//go:build !race

package lint

const (
	// poolStride samples the corpus instances that every fixed schema also meets.
	poolStride = 2
	// schemaStride samples the schemas of the corpus tests (1: all of them).
	schemaStride = 1
	raceEnabled  = false
)
