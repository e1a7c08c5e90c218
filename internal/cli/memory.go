package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// The memory budget (--max-memory): a run, or each call of `jstk mcp`, may hold this much
// heap. The Go runtime is told (debug.SetMemoryLimit, so that the collector works harder
// near it), and a watchdog samples the heap; past the budget, the run is stopped with an
// error that says so, before the kernel kills the process for all its calls.

// memoryFraction is the part of the machine's memory (or of the cgroup's limit) that the
// default budget takes.
const memoryFraction = 4

// memoryInterval is how often the watchdog samples the heap. A command's first sample is
// taken after memoryFirst: most small validations end before it, and the runtime's memory
// limit, set at once, holds the collector to the budget from the start.
const (
	memoryInterval = 20 * time.Millisecond
	memoryFirst    = 50 * time.Millisecond
)

// defaultMemoryBudget is a quarter of the memory this process may use: the smaller of the
// machine's (/proc/meminfo) and its cgroup's limit; 0 (no budget) when neither can be read.
func defaultMemoryBudget() int64 {
	total := machineMemory()
	if c := cgroupMemory(); c > 0 && (total == 0 || c < total) {
		total = c
	}
	return total / memoryFraction
}

// meminfoMemory reads MemTotal from /proc/meminfo, in bytes; 0 when unknown.
func meminfoMemory() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	return parseMeminfo(data)
}

func parseMeminfo(data []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// cgroupMemory reads the memory limit of this process's cgroup (v2, then v1), in bytes;
// 0 when there is none or it cannot be read.
func cgroupMemory() int64 {
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if data, err := os.ReadFile(f); err == nil {
			return parseCgroupLimit(data)
		}
	}
	return 0
}

func parseCgroupLimit(data []byte) int64 {
	s := strings.TrimSpace(string(data))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= 1<<62 { // "max", or v1's "no limit" (a huge number)
		return 0
	}
	return n
}

// memoryFlag is --max-memory: the budget in bytes, 0 for none.
type memoryFlag struct{ budget int64 }

func (m *memoryFlag) register(fs interface {
	Func(name, usage string, fn func(string) error)
}, what string) {
	m.budget = defaultMemoryBudget()
	fs.Func("max-memory", fmt.Sprintf("the heap %s may use: past it, it is stopped with an error saying so (e.g. 512M, 2GiB; 0: no budget) (default a quarter of the machine's memory, or of the cgroup's limit when lower)",
		what), func(s string) error {
		if strings.TrimSpace(s) == "0" {
			m.budget = 0
			return nil
		}
		n, err := parseSize(s)
		m.budget = n
		return err
	})
}

// mbText writes a budget in megabytes.
func mbText(n int64) string {
	if n <= 0 {
		return "none"
	}
	return fmt.Sprintf("%d MB", n>>20)
}

// heapBytes is the memory of the heap's objects, live and not yet swept. It reads the
// runtime's MemStats, which stops the world and empties every allocation cache: a cost paid
// once a sample, by runs that last past memoryFirst. Package runtime/metrics would not stop
// the world, but its initialisation (95 allocations, 0.1 ms) is paid by every command at
// start-up, the runs that never take a sample included.
func heapBytes(ms *runtime.MemStats) uint64 {
	runtime.ReadMemStats(ms)
	return ms.HeapAlloc
}

// watchMemory applies a budget to this process: the runtime's soft limit comes down to it
// (never up: tuneGC's limit is lower when the budget is large), and a watchdog calls
// exceeded, once, with the heap's size, when the heap passes it. It returns a function that
// stops the watchdog. A budget <= 0 watches nothing.
func watchMemory(budget int64, exceeded func(heap uint64)) (stop func()) {
	return watchMemoryFrom(budget, memoryInterval, exceeded)
}

// watchMemoryFrom is watchMemory whose first sample is taken after first.
func watchMemoryFrom(budget int64, first time.Duration, exceeded func(heap uint64)) (stop func()) {
	if budget <= 0 {
		return func() {}
	}
	if cur := debug.SetMemoryLimit(-1); budget < cur {
		debug.SetMemoryLimit(budget)
	}
	done := make(chan struct{})
	// The first sample is taken after first, on a goroutine started then: a run that ends
	// before it starts no goroutine and no thread for the watchdog, and never reads the
	// runtime's memory statistics.
	timer := time.AfterFunc(first, func() {
		s := new(runtime.MemStats)
		t := time.NewTicker(memoryInterval)
		defer t.Stop()
		for {
			if heapBytes(s) > uint64(budget) {
				// Garbage not yet collected counts until a collection: only what survives
				// one is over the budget.
				runtime.GC()
				if h := heapBytes(s); h > uint64(budget) {
					exceeded(h)
					return
				}
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() { timer.Stop(); close(done) }
}
