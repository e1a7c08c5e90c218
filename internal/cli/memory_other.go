//go:build !linux

package cli

// machineMemory is the machine's memory in bytes, from /proc/meminfo where there is one;
// 0 when unknown.
func machineMemory() int64 { return meminfoMemory() }
