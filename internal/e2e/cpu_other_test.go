//go:build !linux

package e2e

import "time"

// processTreeCPU is not measured outside Linux.
func processTreeCPU(int) (time.Duration, bool) { return 0, false }
