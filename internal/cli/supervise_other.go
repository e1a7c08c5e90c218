//go:build !linux

package cli

import "syscall"

// workerAttr: on systems without a parent-death signal, the worker ends when its stdin
// (the server's pipe) closes, which happens when the server dies.
func workerAttr() *syscall.SysProcAttr { return nil }
