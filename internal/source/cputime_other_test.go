//go:build !unix

package source

import "time"

// cpuTime is not measured here: benchmarks report no CPU throughput.
func cpuTime() time.Duration { return 0 }
