//go:build unix

package source

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the process has used so far, so that a
// benchmark on a loaded machine can report throughput per CPU second as well as per second
// of the clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
