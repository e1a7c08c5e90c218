package e2e

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of the CPU times in /proc/PID/stat (USER_HZ, 100 on every Linux
// that Go supports).
const clockTick = 10 * time.Millisecond

// processTreeCPU returns the CPU time (user and system) of the process pid and of its live
// children (the engine process of `jstk mcp`, see childrenOf), from /proc; false when it cannot be read.
func processTreeCPU(pid int) (time.Duration, bool) {
	total, ok := processCPU(pid)
	if !ok {
		return 0, false
	}
	for _, child := range childrenOf(pid) {
		if t, ok := processCPU(child); ok {
			total += t
		}
	}
	return total, true
}

// processCPU reads utime+stime of one process (all its threads, dead ones included).
func processCPU(pid int) (time.Duration, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state): utime is field 14, stime 15
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+st) * clockTick, true
}
