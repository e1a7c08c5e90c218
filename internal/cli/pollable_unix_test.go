//go:build unix

package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestRawPipe: what a rawPipe writes (more than a pipe holds, so that it waits while the
// pipe is full) a rawPipe reads back whole, then io.EOF when the writer closes.
func TestRawPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rp, wp := rawPipeOf(r), rawPipeOf(w)
	if rp == nil || wp == nil {
		t.Fatal("os.Pipe's files are not taken as non-blocking pipes")
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	done := make(chan error, 1)
	go func() {
		n, err := wp.Write(data)
		if err == nil && n != len(data) {
			err = io.ErrShortWrite
		}
		w.Close()
		done <- err
	}()
	got, err := io.ReadAll(rp)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes, want the %d written", len(got), len(data))
	}
	if n, err := rp.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("after the end: %d, %v; want 0, io.EOF", n, err)
	}
}

// TestPipeIO: a blocking pipe (as a child process's standard streams are) is made a
// rawPipe, and restore makes it blocking again; a file that is not a pipe is left alone.
func TestPipeIO(t *testing.T) {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w") // blocking
	defer r.Close()
	defer w.Close()
	if rawPipeOf(r) != nil {
		t.Fatal("a blocking pipe was taken as one in the poller")
	}
	var g rawGuard
	rw, restore, ok := pipeIO(r, &g)
	if !ok {
		t.Fatal("a pipe was not made a rawPipe")
	}
	if nb, _ := isNonblock(fds[0]); !nb {
		t.Error("pipeIO left the pipe blocking")
	}
	go w.Write([]byte("hello\n"))
	buf := make([]byte, 16)
	n, err := rw.Read(buf)
	if err != nil || string(buf[:n]) != "hello\n" {
		t.Errorf("read %q, %v", buf[:n], err)
	}
	restore()
	if nb, _ := isNonblock(fds[0]); nb {
		t.Error("restore left the pipe non-blocking")
	}
	// Restored, the pipe is blocking: the rawPipe must not read it (a raw read would
	// block its thread unseen), nor write.
	if n, err := rw.Read(buf); n != 0 || !errors.Is(err, os.ErrClosed) {
		t.Errorf("read after restore: %d, %v; want os.ErrClosed", n, err)
	}
	if n, err := rw.Write([]byte("x")); n != 0 || !errors.Is(err, os.ErrClosed) {
		t.Errorf("write after restore: %d, %v; want os.ErrClosed", n, err)
	}
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, _, ok := pipeIO(f, &g); ok {
		t.Error("a regular file was taken as a pipe")
	}
	if _, _, ok := pipeIO(bytes.NewReader(nil), &g); ok {
		t.Error("a bytes.Reader was taken as a pipe")
	}
}

// isNonblock reports whether fd is in non-blocking mode.
func isNonblock(fd int) (bool, error) {
	flags, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if e != 0 {
		return false, e
	}
	return flags&syscall.O_NONBLOCK != 0, nil
}

// TestRawPipeFlagCleared: when another process sharing the stream clears O_NONBLOCK, a read
// waits through package syscall, where the runtime sees it blocked: a collection (which
// stops the world) completes while the read waits, and the read gets what is written later.
func TestRawPipeFlagCleared(t *testing.T) {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	defer r.Close()
	defer w.Close()
	var g rawGuard
	rw, restore, ok := pipeIO(r, &g)
	if !ok {
		t.Fatal("a pipe was not made a rawPipe")
	}
	defer restore()
	if err := syscall.SetNonblock(fds[0], false); err != nil { // as another process would
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 16)
		n, err := rw.Read(buf)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(buf[:n])
	}()
	time.Sleep(50 * time.Millisecond) // the read is waiting
	gcDone := make(chan struct{})
	go func() { runtime.GC(); close(gcDone) }()
	select {
	case <-gcDone:
	case <-time.After(20 * time.Second):
		t.Fatal("a collection did not complete while the read waited: the read holds its thread unseen")
	}
	if _, err := w.Write([]byte("late\n")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "late\n" {
		t.Errorf("read %q, want %q", s, "late\n")
	}
}
