//go:build !linux

package e2e

import "syscall"

// probeAttr is empty where a child cannot ask to die with its parent.
func probeAttr() *syscall.SysProcAttr { return nil }
