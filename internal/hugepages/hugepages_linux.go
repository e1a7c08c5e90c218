package hugepages

import (
	"slices"
	"syscall"
	"time"
	"unsafe"
)

// chunk is the granule in which the Go runtime maps heap memory on Linux (its palloc
// chunk), and at whose alignment it maps it.
const chunk = 4 << 20

// pageSize is the size of a small page on amd64, and on arm64 as most distributions build
// it. Where pages are larger, most of faultCost's touches find their page present, the
// time it returns says faults are cheap, and no advice is given.
const pageSize = 4 << 10

// spillBelow: when less than this is left of the chunk the heap is in, it is filled (see
// spillPast).
const spillBelow = 3 << 20

// The madvise advice values (linux/mman.h); the syscall package has the first only.
const (
	madvHugepage = syscall.MADV_HUGEPAGE
	madvCollapse = 25
)

// probe is kept in a package variable so that it is allocated on the heap.
var probe *[16]byte

// slowFault is the cost of a page fault from which huge pages pay. Measured on two virtual
// machines of the same kind: where a fault took about 8 µs, huge pages cut a small
// validation's CPU by a quarter; where it took 1-2 µs, zeroing whole huge pages cost more
// than the faults saved (up to 0.7 ms more for `jstk --version`). The line is drawn between.
const slowFault = 4 * time.Microsecond

// probePages is how many page faults faultCost times.
const probePages = 8

// applied says whether the kernel accepted the advice for the heap's first chunks. It is
// false when turned off, when page faults are cheap here, or when the kernel refused.
var applied bool

// timedFault is the cost of a page fault as timed at start-up (see faultCost), or 0 when it
// was not timed (JSTK_HUGEPAGES=0 or 1, or the probe's mapping refused).
var timedFault time.Duration

func init() {
	switch v, _ := syscall.Getenv("JSTK_HUGEPAGES"); v {
	case "0":
		return
	case "1":
	default:
		if timedFault = faultCost(); timedFault < slowFault {
			return
		}
	}
	applied = apply()
}

// faultCost times the first touch of each page of a fresh anonymous mapping of probePages
// pages, and returns the third shortest: a timer interrupt or another process only
// lengthens a fault, and on a loaded machine the median was moved (2 runs in 24 advised
// with three busy loops on two cores, faults of 1.4-2.2 us). With the code it runs for the
// first time, it takes about 0.06 ms at start-up; it returns 0 when the mapping is refused.
func faultCost() time.Duration {
	mem, err := syscall.Mmap(-1, 0, probePages*pageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return 0
	}
	defer syscall.Munmap(mem)
	var d [probePages]time.Duration
	for i := range d {
		t := time.Now()
		mem[i*pageSize] = 1
		d[i] = time.Since(t)
	}
	slices.Sort(d[:])
	return d[2]
}

// apply advises huge pages for the chunk the heap is in, and for the next one when less
// than spillBelow is left of it, and collapses the pages already touched. It says whether
// the kernel accepted the advice.
func apply() bool {
	probe = new([16]byte)
	p := uintptr(unsafe.Pointer(probe))
	base := p &^ (chunk - 1)
	ok := hugeRange(base, base+chunk)
	if left := base + chunk - p; left < spillBelow {
		from, to := spillPast(left)
		ok = hugeRange(from, to) && ok
	}
	return ok
}

// hugeRange advises huge pages for the chunks from..to and collapses the pages already
// touched in them: those stay small otherwise. A 2 MB piece with none is refused (EINVAL)
// and left to its first fault, which the advice makes huge. It says whether the kernel
// accepted the advice.
func hugeRange(from, to uintptr) bool {
	ok := advise(from, to-from, madvHugepage)
	advise(from, to-from, madvCollapse)
	return ok
}

// spillPast makes the runtime map the chunk after the heap's, and returns the chunks where
// the heap goes on. Since Go 1.26 the heap starts at a random page of its first chunk:
// started past the first megabyte, a short run soon needs the next chunk, which the runtime
// would map then, without the advice. A large object that takes what is left of the chunk,
// and a little more, has it mapped now (the next chunk, or, when the first chunk ends its
// arena, one elsewhere); the heap goes on after it. The object is garbage at once and never
// written: it takes address space, not memory, until the first collection frees it (a
// slice of a size known only when running is always allocated on the heap).
func spillPast(left uintptr) (from, to uintptr) {
	spill := make([]byte, left+8<<10)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(spill)))
	end := start + uintptr(len(spill))
	return start &^ (chunk - 1), (end + chunk - 1) &^ (chunk - 1)
}

// advise gives the advice to n bytes at base, and says whether the kernel accepted it.
func advise(base, n uintptr, advice int) bool {
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, base, n, uintptr(advice))
	return errno == 0
}
