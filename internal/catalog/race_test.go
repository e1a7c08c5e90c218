//go:build race

package catalog

// Under the race detector (about five times slower) the corpus test compiles one schema in
// ten to compare with the catalog.
const corpusStride = 10
