package cli

import "syscall"

// machineMemory is the machine's memory in bytes (MemTotal), from sysinfo(2): a system call
// where reading /proc/meminfo, which the kernel writes out in full, cost 0.3-0.5 ms of
// every run's start; /proc/meminfo when the call fails; 0 when unknown.
func machineMemory() int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil && si.Totalram > 0 {
		return int64(si.Totalram) * int64(max(si.Unit, 1))
	}
	return meminfoMemory()
}
