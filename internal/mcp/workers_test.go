package mcp

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// goroutineID is the number runtime.Stack gives the calling goroutine ("goroutine 7
// [running]"), or its first line when it cannot be read (the test goroutine fails then).
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	if f := strings.Fields(string(buf)); len(f) >= 2 && f[0] == "goroutine" {
		return f[1]
	}
	return "unreadable: " + string(buf)
}

// TestWorkersReuse: a function handed to Workers after another ended runs on the goroutine
// that ran it, which waited; one handed after that goroutine's idle time runs on a new one.
func TestWorkersReuse(t *testing.T) {
	w := NewWorkers(200 * time.Millisecond)
	ran := make(chan string)
	call := func() { w.Go(func() { ran <- goroutineID() }) }
	call()
	first := <-ran
	if strings.HasPrefix(first, "unreadable") {
		t.Fatalf("goroutine number %s", first)
	}
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
