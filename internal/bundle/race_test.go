//go:build race

package bundle

// Under the race detector (five to ten times slower), schemas without references to
// other documents are checked in a sample: every schemaStride-th.
const schemaStride = 4
