package cli

import "syscall"

// workerAttr: the worker is killed when the server dies (however it dies), and it has its
// own process group, so that a terminal's Ctrl-C reaches the server, which ends the session
// in order, and not the worker.
func workerAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}
