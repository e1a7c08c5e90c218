//go:build unix

package e2e

import "syscall"

// makeFIFO makes a named pipe: a file no tool may open (opening it would wait for a writer).
func makeFIFO(path string) error { return syscall.Mkfifo(path, 0o644) }
