package mcp

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// goroutineID is the number runtime.Stack gives the calling goroutine ("goroutine 7 [running]").
func goroutineID(t *testing.T) string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := strings.Fields(string(buf))
	if len(f) < 2 || f[0] != "goroutine" {
		t.Fatalf("unreadable stack header %q", buf)
	}
	return f[1]
}

// TestWorkersReuse: a function handed to Workers after another ended runs on the goroutine
// that ran it, which waited; one handed after that goroutine's idle time runs on a new one.
func TestWorkersReuse(t *testing.T) {
	w := NewWorkers(200 * time.Millisecond)
	ran := make(chan string)
	call := func() { w.Go(func() { ran <- goroutineID(t) }) }
	call()
	first := <-ran
	var second string
	for range 100 { // the worker reaches its wait a moment after f returns
		call()
		if second = <-ran; second == first {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if second != first {
		t.Fatalf("the next call ran on goroutine %s, not on %s, which ran the first and waits", second, first)
	}
	time.Sleep(3 * w.idleFor)
	call()
	if third := <-ran; third == first {
		t.Fatalf("a call after the idle time ran on goroutine %s, which should have ended", third)
	}
}
