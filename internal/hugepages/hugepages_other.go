//go:build !linux

package hugepages

// Applied is false: huge pages are asked for on Linux only.
var Applied bool
