package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// blockingPipe returns a pipe whose ends are blocking, as a client's stream is.
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// engineView maps the share a second time, as the engine process does.
func engineView(t *testing.T, s *answerShare) *answerShare {
	t.Helper()
	e, err := mapAnswerShare(s.memfd, s.client, false)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestAnswerShareOnlyForBlockingPipes(t *testing.T) {
	if newAnswerShare(&bytes.Buffer{}) != nil {
		t.Error("a share for a buffer")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if newAnswerShare(f) != nil {
		t.Error("a share for a regular file: its writes are not atomic")
	}
	_, nb, err := os.Pipe() // non-blocking: in Go's poller
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Close()
	if newAnswerShare(nb) != nil {
		t.Error("a share for a non-blocking pipe, which starting the engine would make blocking")
	}
	_, w := blockingPipe(t)
	if newAnswerShare(w) == nil {
		t.Error("no share for a blocking pipe")
	}
	if _, err := mapAnswerShare(f, w, false); err == nil {
		t.Error("an engine mapped a file that is not the server's share")
	}
}

func TestAnswerShare(t *testing.T) {
	r, w := blockingPipe(t)
	s := newAnswerShare(w)
	if s == nil {
		t.Fatal("no share for a blocking pipe")
	}
	e := engineView(t, s)
	const pid = 4242
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")

	// An answer the engine writes reaches the client, and a cancellation then loses.
	a := s.slot()
	if !e.write(a, line, true) {
		t.Fatal("the engine did not write an answer")
	}
	got := make([]byte, 100)
	if n, _ := r.Read(got); !bytes.Equal(got[:n], line) {
		t.Errorf("the client read %q", got[:n])
	}
	if s.cancel(a) {
		t.Error("a cancellation after the answer won")
	}
	if sent, isError := s.sent(a); !sent || !isError {
		t.Errorf("sent %v, isError %v", sent, isError)
	}
	if s.lock.Load() != 0 {
		t.Error("the engine kept the lock")
	}

	// A call cancelled first is not answered by the engine.
	b := s.slot()
	if b == a || !s.cancel(b) || !s.cancel(b) || e.write(b, line, false) {
		t.Error("the engine answered a cancelled call")
	}
	if sent, _ := s.sent(b); sent {
		t.Error("a cancelled call counts as answered")
	}

	// While the server writes, or after it shut, the engine relays; a line too long for
	// one atomic write is relayed too.
	c := s.slot()
	s.lockForServer()
	if e.write(c, line, false) {
		t.Error("the engine wrote while the server held the lock")
	}
	s.unlockForServer()
	if e.write(c, bytes.Repeat([]byte("x"), answerDirectMax+1), false) || e.write(-1, line, false) {
		t.Error("the engine wrote an answer longer than one atomic write, or of no slot")
	}

	// An engine that died writing: the slot is open again, the lock freed (only its own).
	s.slots[c].Store(answerWriting)
	e.lock.Store(pid)
	s.dead(pid + 1)
	if s.lock.Load() != pid {
		t.Error("the death of another engine freed the lock")
	}
	s.dead(pid)
	if s.lock.Load() != 0 {
		t.Error("the lock of a dead engine was not freed")
	}
	if sent, _ := s.sent(c); sent || s.slots[c].Load() != answerOpen {
		t.Error("a half-done write counts as answered")
	}

	// A client may read an answer before the engine says it sent it: isSent waits for
	// the write under way.
	s.slots[c].Store(answerWriting)
	go func() {
		time.Sleep(20 * time.Millisecond)
		s.slots[c].Store(answerSentOK)
	}()
	if !s.isSent(c) {
		t.Error("isSent did not wait for the write under way")
	}
	s.slots[c].Store(answerOpen)
	if s.isSent(c) {
		t.Error("an open call counts as sent")
	}
	for _, i := range []int{a, b, c} {
		s.release(i)
	}

	// All slots in use: the next call is relayed.
	var all []int
	for i := s.slot(); i >= 0; i = s.slot() {
		all = append(all, i)
	}
	if len(all) != answerSlots {
		t.Errorf("%d slots, want %d", len(all), answerSlots)
	}
	s.release(all[0])
	if s.slot() != all[0] {
		t.Error("a released slot was not given again")
	}

	// The server waits for an engine's write under way.
	e.lock.Store(pid)
	go func() {
		time.Sleep(5 * time.Millisecond)
		e.lock.Store(0)
	}()
	s.lockForServer()
	if s.lock.Load() != lockServer {
		t.Error("the server wrote without the lock")
	}
	s.unlockForServer()

	// Shut: the server keeps the lock, even after waiting for an engine that holds it.
	e.lock.Store(pid)
	start := time.Now()
	s.shut(20 * time.Millisecond)
	if time.Since(start) < 20*time.Millisecond {
		t.Error("shut did not wait for the engine's write")
	}
	e.lock.Store(0)
	s.shut(time.Second)
	if s.lock.Load() != lockServer || e.write(all[1], line, false) {
		t.Error("an engine wrote after the server shut")
	}
}
