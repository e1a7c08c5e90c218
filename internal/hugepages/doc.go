// Package hugepages owns one start-up measure for short runs on Linux: the heap's first
// chunk is backed by transparent huge pages, so that the few megabytes a typical run touches
// cost a couple of page faults instead of hundreds.
//
// A small validation touches about 1.5 MB of fresh heap, one 4 KB page fault at a time. On
// the virtual machine where issue 29 was measured, a fault cost about 8 µs: a quarter of a
// small run's CPU. The Go runtime maps its heap in 4 MB chunks and, since Go 1.21.1, does not ask
// for huge pages; this package asks for them on the chunk that holds the heap at start-up
// (madvise MADV_HUGEPAGE), and has the kernel collapse the pages already touched into huge
// pages at once (MADV_COLLAPSE, Linux 6.1 and later). Chunks the heap grows into later are
// left as the runtime maps them. Each request is advice: a kernel without transparent huge
// pages, or without MADV_COLLAPSE, refuses it, and nothing else changes. The cost is at most
// 4 MB of resident memory more than the pages touched.
//
// Huge pages pay only where a page fault is slow: a huge page is zeroed whole, 2 MB at a
// time, where small pages zero only what is touched. On a virtual machine of the same kind
// where a fault took 1-2 µs, the advice cost a small run up to a tenth more CPU; so the
// package first times eight faults on a fresh mapping of its own (about 0.06 ms at
// start-up) and gives the advice only when the third shortest is 4 µs or more.
//
// It acts when it is initialised, which an import for its side effect arranges (package
// main imports it), as early as the package initialisation order allows: it imports only
// syscall, time, slices and unsafe. JSTK_HUGEPAGES=0 in the environment turns it off;
// JSTK_HUGEPAGES=1 gives the advice without timing faults.
package hugepages
