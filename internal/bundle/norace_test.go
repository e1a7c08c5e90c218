//go:build !race

package bundle

// schemaStride samples the schemas without references to other documents (1: all).
const schemaStride = 1
