//go:build !race

package catalog

// corpusStride samples the schemas the corpus test compiles to compare with the catalog.
const corpusStride = 1
