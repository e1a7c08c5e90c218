package mcp

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// lockedBuffer is an audit writer safe for the concurrent calls.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestConcurrencyCap: at most MaxConcurrent calls run at once; the others wait their turn
// in the order they came, and one cancelled while it waits never runs and is never
// answered.
func TestConcurrencyCap(t *testing.T) {
	t.Parallel()
	p := newFakeProvider()
	p.started = make(chan string, 10)
	var audit lockedBuffer
	opts := testOptions()
	opts.MaxConcurrent = 2
	opts.Audit = &audit
	ss := newSession(t, p, opts)
	ss.do(initLine)
	for _, id := range []string{"1", "2", "3", "4", "5"} {
		ss.do("&" + request(id, "tools/call", `{"name":"slow"}`))
	}
	got := []string{<-p.started, <-p.started}
	time.Sleep(100 * time.Millisecond) // were there no cap, the others would have started by now
	if n := len(p.started); n != 0 {
		t.Fatalf("%d more calls started while two ran; the cap is 2", n)
	}
	ss.do("&" + cancel("4")) // waiting: it must never run
	ss.do("&" + cancel("1")) // running: its slot goes to the first in line, 3
	got = append(got, <-p.started)
	ss.do("&"+cancel("2"), "&"+cancel("3"))
	got = append(got, <-p.started)
	ss.do("&" + cancel("5"))
	ss.srv.Wait()
	if diff := cmp.Diff([]string{"run-1", "run-2", "run-3", "run-5"}, sortedStrings(got)); diff != "" {
		t.Errorf("calls that ran (-want +got):\n%s", diff)
	}
	if out := ss.do(); len(out) != 0 {
		t.Errorf("%d messages sent, want none for the cancelled calls: %q", len(out), out)
	}
	if n := strings.Count(audit.String(), `"outcome":"cancelled"`); n != 5 {
		t.Errorf("%d audit lines say cancelled, want 5:\n%s", n, audit.String())
	}
}

// TestShutdownWaitsBriefly: WaitTimeout reports a call still running, and every call once
// the Handle context (the server's life) is cancelled.
func TestShutdownWaitsBriefly(t *testing.T) {
	t.Parallel()
	p := newFakeProvider()
	p.started = make(chan string, 10)
	opts := testOptions()
	opts.MaxConcurrent = 1
	ss := newSession(t, p, opts)
	ctx, stop := context.WithCancel(context.Background())
	ss.ctx = ctx
	ss.do(initLine)
	ss.do("&"+request("1", "tools/call", `{"name":"slow"}`), "&"+request("2", "tools/call", `{"name":"slow"}`))
	<-p.started
	if ss.srv.WaitTimeout(50 * time.Millisecond) {
		t.Fatal("WaitTimeout reports every call done while one runs")
	}
	stop()
	if !ss.srv.WaitTimeout(time.Minute) {
		t.Fatal("the calls did not end once the server's context was cancelled")
	}
	out := ss.do()
	if len(out) != 2 || !bytes.Contains(out[0], []byte(`"isError":true`)) || !bytes.Contains(out[1], []byte(`"isError":true`)) {
		t.Errorf("want both calls answered as stopped:\n%s", bytes.Join(out, []byte("\n")))
	}
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
