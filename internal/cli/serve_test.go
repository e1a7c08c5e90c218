package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/mcp"
)

// A call that ends within readingHandOff ends on the reading goroutine, which reads on;
// one that runs longer has the reading go on elsewhere, once, and its goroutine then stops
// reading; and when more is to be read, the call goes elsewhere and the reading goes on.
func TestRunReading(t *testing.T) {
	w := mcp.NewWorkers(time.Second)
	var reads atomic.Int32
	if !runReading(w, func() {}, false, func() { reads.Add(1) }, nil) {
		t.Error("a quick call: runReading said the reading went on elsewhere")
	}
	time.Sleep(3 * readingHandOff) // the timer of the call, stopped, must not start a reader later
	if n := reads.Load(); n != 0 {
		t.Errorf("a quick call: the reading went on elsewhere %d times", n)
	}

	off := make(chan struct{})
	slow := func() { <-off } // runs until the reading goes on elsewhere
	if runReading(w, slow, false, func() { reads.Add(1); close(off) }, nil) {
		t.Error("a long call: runReading said the call ended first")
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("a long call: the reading went on elsewhere %d times, want 1", n)
	}

	// A call that hands the reading on (it waits for the engine process from then on):
	// the reading goes on elsewhere at once, once, however long the call then runs.
	ho := new(handOff)
	ctx := context.WithValue(context.Background(), handOffKey{}, ho)
	onward := make(chan struct{})
	waits := func() {
		handOffReading(ctx)
		handOffReading(ctx)
		<-onward // the reading went on before the call ended
	}
	if runReading(w, waits, false, func() { reads.Add(1); close(onward) }, ho) {
		t.Error("a call that handed the reading on: runReading said the call ended first")
	}
	if n := reads.Load(); n != 2 {
		t.Errorf("a call that handed the reading on: %d readers in all, want 2", n)
	}
	handOffReading(context.Background()) // a call of no stream: nothing to hand on

	// More to read: the call runs elsewhere, and this goroutine reads on.
	release, ran := make(chan struct{}), make(chan struct{})
	if !runReading(w, func() { <-release; close(ran) }, true, func() { reads.Add(1) }, nil) {
		t.Error("more to read: runReading said the caller stops reading")
	}
	close(release) // the call was still waiting: it runs on another goroutine
	<-ran
	if n := reads.Load(); n != 2 {
		t.Errorf("more to read: a reader was started (%d)", n)
	}
}

// blockProvider serves "block", which runs until its call is cancelled, and "quick".
type blockProvider struct{ started chan string }

func (blockProvider) Tools() []mcp.Tool {
	obj := json.RawMessage(`{"type":"object"}`)
	return []mcp.Tool{{Name: "block", Description: "Runs until cancelled.", InputSchema: obj},
		{Name: "quick", Description: "Answers at once.", InputSchema: obj}}
}

func (p blockProvider) Call(ctx context.Context, req *mcp.CallRequest) *mcp.CallResult {
	if req.Name == "block" {
		p.started <- req.RunID
		<-ctx.Done()
		return mcp.ErrorResult("stopped")
	}
	return &mcp.CallResult{Content: []mcp.Content{mcp.TextContent("done")}}
}

// While a call runs on the goroutine that read it (inline), or on its own, the stdio
// loop still reads: a ping is answered, a cancellation stops the call, and calls that
// come together all run at once.
func TestServeReadsWhileACallRuns(t *testing.T) {
	for _, inline := range []bool{true, false} {
		t.Run(fmt.Sprint("inline=", inline), func(t *testing.T) { testServeReads(t, inline) })
	}
}

func testServeReads(t *testing.T, inline bool) {
	p := blockProvider{started: make(chan string, 4)}
	srv := mcp.NewServer(p, &mcp.Options{Name: "jstk", Version: "test", MaxConcurrent: 4, Logf: func(string, ...any) {}})
	inR, inW, err := os.Pipe() // buffered: a write does not wait for the loop to read
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- serve(context.Background(), srv, mcp.DefaultMaxMessageSize, Streams{Stdin: inR, Stdout: outW, Stderr: io.Discard}, time.Minute, time.Minute, nil, inline, nil)
		outW.Close()
	}()
	answers := make(chan string)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			answers <- sc.Text()
		}
		close(answers)
	}()
	write := func(lines ...string) {
		t.Helper()
		if _, err := io.WriteString(inW, strings.Join(lines, "\n")+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(id string) {
		t.Helper()
		select {
		case a, ok := <-answers:
			if !ok || !strings.Contains(a, `"id":`+id+`,`) {
				t.Fatalf("got %q, want the answer of id %s", a, id)
			}
		case <-time.After(time.Minute): // a loop that stopped reading would never answer
			t.Fatalf("no answer for id %s: the loop stopped reading", id)
		}
	}
	write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	expect("1")

	write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block"}}`)
	<-p.started
	write(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	expect("3")
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"quick"}}`)
	expect("4") // the cancelled call 2 is not answered

	// Two calls written together both run, each until cancelled.
	write(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"block"}}`)
	<-p.started
	<-p.started
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	expect("7")
	inW.Close()
	if c := <-code; c != ExitOK {
		t.Errorf("serve: exit %d", c)
	}
	if a, ok := <-answers; ok {
		t.Errorf("more after the end: %s", a)
	}
}
