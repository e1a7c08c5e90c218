package e2e

import "syscall"

// probeAttr kills the measured command when the probe dies (a test's timeout kills the probe).
func probeAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
