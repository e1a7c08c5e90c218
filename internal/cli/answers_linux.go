package cli

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// An answerShare is what `jstk mcp` shares with its engine process so that the engine
// writes a call's answer to the client itself: the answer then takes one hop between the
// processes, not two (a relay of each answer through the server cost a warm call about
// half of its p50 on a 2-core virtual machine; see BENCHMARKS.md). The server keeps the
// session, reads the client's stream and hands each call on as before; the engine, whose
// file descriptor 4 is the client's stream, writes the answers of small results there
// and then tells the server it did.
//
// The share is a page of memory (a memfd, the engine's descriptor 3) holding:
//   - a lock of the client's stream, free (0), the server's (1) or an engine's (its
//     process id): an answer and a longer message of the server must not interleave;
//   - one state word per call slot: answerOpen (the call runs, nothing sent),
//     answerCancelled (the client cancelled it first: the engine sends nothing),
//     answerWriting (the engine is writing it), answerSentOK or answerSentError (sent).
//
// The engine writes an answer only in one write(2) of at most answerDirectMax bytes,
// which a pipe takes whole or not at all (PIPE_BUF), and only holding the lock. So when
// the engine dies, a call whose slot says answerWriting or answerOpen was not answered
// (the server answers it, or runs it again), one that says sent was, and the lock, if the
// dead engine held it, is freed. (An engine killed between the end of its write and the
// store of the state leaves a call answered twice: the second answer has the same id,
// which clients ignore. The window is a few instructions, but the write wakes the client,
// which may preempt the engine's thread right there.)
type answerShare struct {
	memfd  *os.File
	client *os.File // the client's stream (the server's stdout)
	lock   *atomic.Int32
	slots  []atomic.Int32
	pid    int32 // an engine's: its mark on the lock

	mu   sync.Mutex
	free []int // slots not in use
}

// The states of a call slot.
const (
	answerOpen      = 0
	answerCancelled = 1
	answerWriting   = 2
	answerSentOK    = 3
	answerSentError = 4
)

// answerSlots is the number of slots: calls beyond it in flight at once are relayed.
const answerSlots = 1000

// answerDirectMax bounds an answer the engine writes itself: PIPE_BUF, what a pipe takes
// in one piece.
const answerDirectMax = 4096

// lockServer is the server's mark on the lock.
const lockServer = 1

// newAnswerShare returns the share for a server whose client stream is out, or nil when
// out is not a blocking pipe or socket (a file or a terminal has no atomic writes to rely
// on) or the memory cannot be had.
func newAnswerShare(out any) *answerShare {
	f, ok := out.(*os.File)
	if !ok {
		return nil
	}
	// Not f.Fd(), which would make a non-blocking stream blocking: the stream may be
	// shared with another process (a launcher). A non-blocking one is left to the server
	// alone, since starting the engine with it as its descriptor 4 calls Fd.
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	usable := false
	if rc.Control(func(fd uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(fd), &st) != nil {
			return
		}
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		m := st.Mode & syscall.S_IFMT
		usable = err == nil && flags&unix.O_NONBLOCK == 0 && (m == syscall.S_IFIFO || m == syscall.S_IFSOCK)
	}) != nil || !usable {
		return nil
	}
	fd, err := unix.MemfdCreate("jstk-mcp-answers", unix.MFD_CLOEXEC)
	if err != nil {
		return nil
	}
	memfd := os.NewFile(uintptr(fd), "jstk-mcp-answers")
	s, err := mapAnswerShare(memfd, f, true)
	if err != nil {
		memfd.Close()
		return nil
	}
	s.free = make([]int, answerSlots)
	for i := range s.free {
		s.free[i] = answerSlots - 1 - i
	}
	return s
}

// openAnswerShare opens, in the engine process, the share its server passed as
// descriptors 3 (the memory) and 4 (the client's stream).
func openAnswerShare() (*answerShare, error) {
	return mapAnswerShare(os.NewFile(3, "jstk-mcp-answers"), os.NewFile(4, "client"), false)
}

func mapAnswerShare(memfd, client *os.File, create bool) (*answerShare, error) {
	size := 64 + 4*answerSlots
	if create {
		if err := memfd.Truncate(int64(size)); err != nil {
			return nil, err
		}
	} else if fi, err := memfd.Stat(); err != nil || fi.Size() != int64(size) {
		return nil, fmt.Errorf("the answers' shared memory is not the server's (%v)", err)
	}
	mem, err := syscall.Mmap(int(memfd.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	// The mapping lives as long as the process: lock and slots point into it.
	s := &answerShare{memfd: memfd, client: client}
	if !create {
		s.pid = int32(os.Getpid()) // once: it is a system call
	}
	s.lock = (*atomic.Int32)(unsafe.Pointer(&mem[0]))
	s.slots = unsafe.Slice((*atomic.Int32)(unsafe.Pointer(&mem[64])), answerSlots)
	return s, nil
}

// files are the descriptors an engine is given, as its 3 and 4.
func (s *answerShare) files() []*os.File { return []*os.File{s.memfd, s.client} }

// slot returns a slot for a call, open; -1 when all are in use.
func (s *answerShare) slot() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.free) == 0 {
		return -1
	}
	i := s.free[len(s.free)-1]
	s.free = s.free[:len(s.free)-1]
	s.slots[i].Store(answerOpen)
	return i
}

// release gives a slot back.
func (s *answerShare) release(i int) {
	s.mu.Lock()
	s.free = append(s.free, i)
	s.mu.Unlock()
}

// cancel is the client's cancellation of the call in slot i: true when the engine will
// not answer it, false when it has answered (or is writing the answer).
func (s *answerShare) cancel(i int) bool {
	if s.slots[i].CompareAndSwap(answerOpen, answerCancelled) {
		return true
	}
	return s.slots[i].Load() == answerCancelled
}

// isSent reports whether the engine has sent the answer of the call in slot i. An answer
// being written is waited for (at most writingWait): a client can read it, and send its
// next message, before the engine, preempted by the very wake-up of the client, says it
// was sent.
func (s *answerShare) isSent(i int) bool {
	for end := time.Now().Add(writingWait); s.slots[i].Load() == answerWriting && time.Now().Before(end); {
		time.Sleep(10 * time.Microsecond)
	}
	return s.slots[i].Load() >= answerSentOK
}

// writingWait bounds how long isSent waits for an answer being written (a write to a
// client that does not read; an engine that died writing is seen to within a second).
const writingWait = 2 * time.Second

// sent reports, once the engine died, whether it had answered the call in slot i, and
// with isError. A slot it was writing is open again: that write did not happen.
func (s *answerShare) sent(i int) (sent, isError bool) {
	s.slots[i].CompareAndSwap(answerWriting, answerOpen)
	switch s.slots[i].Load() {
	case answerSentOK:
		return true, false
	case answerSentError:
		return true, true
	}
	return false, false
}

// lockForServer takes the lock for one of the server's messages, waiting while an
// engine writes an answer: a write of a few microseconds, or as long as a client that does
// not read leaves the engine blocked in it (hence the back-off, up to a millisecond).
func (s *answerShare) lockForServer() {
	wait := 20 * time.Microsecond
	for i := 0; !s.lock.CompareAndSwap(0, lockServer); i++ {
		if i < 100 {
			runtime.Gosched()
			continue
		}
		time.Sleep(wait)
		wait = min(2*wait, time.Millisecond)
	}
}

// unlockForServer frees the lock after one of the server's messages.
func (s *answerShare) unlockForServer() { s.lock.Store(0) }

// shut keeps the lock for the server for good, waiting at most wait for an engine's
// answer being written: after it no engine writes.
func (s *answerShare) shut(wait time.Duration) {
	end := time.Now().Add(wait)
	for !s.lock.CompareAndSwap(0, lockServer) && time.Now().Before(end) {
		time.Sleep(20 * time.Microsecond)
	}
}

// dead frees the lock when the engine pid died holding it.
func (s *answerShare) dead(pid int) { s.lock.CompareAndSwap(int32(pid), 0) }

// write sends line, the whole answer of the call in slot i, to the client from the
// engine, and says whether it did. It does not when the lock is taken (the server
// writes, or is shutting down), the client cancelled the call, or the write fails: the
// server then sends what the engine relays.
func (s *answerShare) write(i int, line []byte, isError bool) bool {
	if i < 0 || i >= answerSlots || len(line) > answerDirectMax || !s.lock.CompareAndSwap(0, s.pid) {
		return false
	}
	defer s.lock.Store(0)
	if !s.slots[i].CompareAndSwap(answerOpen, answerWriting) {
		return false
	}
	n, err := s.client.Write(line)
	if err != nil || n != len(line) {
		// Nothing, or not all, was written: a pipe whose reader left. The server's own
		// write will say so.
		s.slots[i].Store(answerOpen)
		return false
	}
	state := int32(answerSentOK)
	if isError {
		state = answerSentError
	}
	s.slots[i].Store(state)
	return true
}
