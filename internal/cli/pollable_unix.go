//go:build unix

package cli

import (
	"io"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// The pipes between `jstk mcp` and its engine process are read and written through Go's
// network poller with raw system calls, but for the engine's reading of its jobs, which
// blocks since its answers go to the client itself (see runMCP and answerShare). Why,
// measured on a warm validate call: a blocking read(2) holds a thread in the system
// call, and every system call made through package syscall, when the process was idle,
// wakes the runtime's monitor thread (sysmon), which then polls every 20 us until the
// process is idle again: with a message each way in each process per call, those
// wake-ups were the largest part of a warm call's CPU. A raw read or write of a
// non-blocking pipe never blocks (it returns EAGAIN, and the goroutine waits in the
// poller), so it needs no thread hand-off and wakes no one.

// keptFiles keeps the files pipeIO made (a *os.File that is collected closes its
// descriptor, which the original file still names).
var keptFiles []*os.File

// rawGuard is shared by the rawPipes that pipeIO makes of one process's standard streams:
// it orders their system calls before the restore that makes the streams blocking again
// (a call still in flight when the engine process ends). A raw read of a
// blocking stream would hold its thread and P without telling the runtime, and a stop of
// the world would wait for it; after the restore, the pipes answer os.ErrClosed instead.
type rawGuard struct {
	mu       sync.Mutex
	restored bool
}

// pipeIO returns x (a standard stream of the engine process, a pipe the server made) as a
// rawPipe when it is a pipe; ok is false, and x is to be used as it is, otherwise. The
// stream's end must be this process's alone while it runs: the
// non-blocking flag is on the open file, shared by its copies, so restore puts it back
// (call it when done; from then on the rawPipes of g say os.ErrClosed).
func pipeIO(x any, g *rawGuard) (_ io.ReadWriter, restore func(), ok bool) {
	f, isFile := x.(*os.File)
	if !isFile {
		return nil, nil, false
	}
	if p := rawPipeOf(f); p != nil {
		return p, func() {}, true // non-blocking from the start, in the poller
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return nil, nil, false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil, false
	}
	var fd uintptr
	var setErr error
	if err := rc.Control(func(d uintptr) { fd, setErr = d, syscall.SetNonblock(int(d), true) }); err != nil || setErr != nil {
		return nil, nil, false
	}
	restore = func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.restored = true
		_ = syscall.SetNonblock(int(fd), false)
	}
	nf := os.NewFile(fd, f.Name()) // non-blocking now: os.NewFile puts it in the poller
	keptFiles = append(keptFiles, nf)
	p := rawPipeOf(nf)
	if p == nil {
		restore()
		return nil, nil, false
	}
	p.guard = g
	// A write to a pipe whose reader is gone ends the process with SIGPIPE when it is
	// standard output or error, as Go's own writes do (the runtime ignores the signal of
	// a raw write): the write is made again through f, which does that.
	if fd == 1 || fd == 2 {
		p.broken = func() { f.Write([]byte{'\n'}) }
	}
	return p, restore, true
}

// rawPipe reads and writes a non-blocking pipe with raw system calls, waiting in the
// poller when it is empty (or full).
type rawPipe struct {
	rc syscall.RawConn
	// broken, if not nil, is called when a write finds the reader gone (EPIPE).
	broken func()
	// guard, if not nil, is held during each system call (see rawGuard).
	guard *rawGuard
}

// call makes one raw read or write of b; closed when the guard's streams were restored.
func (p *rawPipe) call(trap, fd uintptr, b []byte) (n int, errno syscall.Errno, closed bool) {
	if g := p.guard; g != nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.restored {
			return 0, 0, true
		}
	}
	if p.guard != nil && !nonBlocking(fd) {
		// Another process sharing this end of the pipe cleared O_NONBLOCK: a raw call could
		// block a thread the runtime does not know is blocked, so the call goes through
		// package syscall, which tells it.
		r, _, e := syscall.Syscall(trap, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		return int(r), e, false
	}
	r, _, e := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(r), e, false
}

// nonBlocking reports whether the open file of fd has O_NONBLOCK set (a raw fcntl, which
// never blocks; true when it cannot be read, as pipeIO set it).
func nonBlocking(fd uintptr) bool {
	fl, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	return e != 0 || fl&syscall.O_NONBLOCK != 0
}

// rawPipeOf returns a rawPipe of x (an *os.File, or a wrapper of one such as os/exec's
// pipes) when it is in the poller; nil otherwise.
func rawPipeOf(x any) *rawPipe {
	f, ok := x.(interface {
		SyscallConn() (syscall.RawConn, error)
		SetDeadline(time.Time) error
	})
	if !ok {
		return nil
	}
	if f.SetDeadline(time.Time{}) != nil { // os.ErrNoDeadline: not in the poller
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	return &rawPipe{rc: rc}
}

// Read reads what the pipe holds, at most len(b) bytes, waiting until it holds something.
func (p *rawPipe) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	closed := false
	err := p.rc.Read(func(fd uintptr) bool {
		for {
			n, errno, closed = p.call(syscall.SYS_READ, fd, b)
			switch errno {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait in the poller
			}
			return true
		}
	})
	switch {
	case err != nil:
		return 0, err
	case closed:
		return 0, os.ErrClosed
	case errno != 0:
		return 0, os.NewSyscallError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of b, waiting while the pipe is full.
func (p *rawPipe) Write(b []byte) (int, error) {
	written := 0
	var errno syscall.Errno
	closed := false
	err := p.rc.Write(func(fd uintptr) bool {
		for written < len(b) && !closed {
			var n int
			var e syscall.Errno
			n, e, closed = p.call(syscall.SYS_WRITE, fd, b[written:])
			switch e {
			case 0:
				written += n
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait in the poller
			default:
				errno = e
				return true
			}
		}
		return true
	})
	if errno == syscall.EPIPE && p.broken != nil {
		p.broken()
	}
	switch {
	case err != nil:
	case closed:
		err = os.ErrClosed
	case errno != 0:
		err = os.NewSyscallError("write", errno)
	case written < len(b):
		err = io.ErrShortWrite
	}
	return written, err
}

// rawWriter returns w as a rawPipe when it is a pipe in the poller (os/exec's pipes to
// the engine process), else w.
func rawWriter(w io.Writer) io.Writer {
	if p := rawPipeOf(w); p != nil {
		return p
	}
	return w
}

// rawReader is rawWriter for a reader.
func rawReader(r io.Reader) io.Reader {
	if p := rawPipeOf(r); p != nil {
		return p
	}
	return r
}
