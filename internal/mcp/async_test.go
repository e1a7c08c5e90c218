package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// asyncProvider is fakeProvider as an AsyncProvider: "later" ends on a goroutine of its own
// once released (or cancelled), "now" ends within CallAsync, "sync" is not started so (the
// server calls Call), "panic" raises its panic from the result, "startpanic" from
// CallAsync itself.
type asyncProvider struct {
	*fakeProvider
	release chan struct{}
	started chan string // the run id of each "later" call once it waits
}

func (p *asyncProvider) CallAsync(ctx context.Context, req *CallRequest, done func(func() *CallResult)) bool {
	switch req.Name {
	case "later":
		go func() {
			p.started <- req.RunID
			select {
			case <-p.release:
				done(func() *CallResult { return &CallResult{Content: []Content{TextContent("later")}} })
			case <-ctx.Done():
				done(func() *CallResult { return ErrorResult("stopped") })
			}
		}()
		return true
	case "now":
		done(func() *CallResult { return &CallResult{Content: []Content{TextContent("now")}} })
		return true
	case "panic":
		go done(func() *CallResult { panic("boom later") })
		return true
	case "startpanic":
		panic("boom at the start")
	}
	return false
}

func newAsyncProvider() *asyncProvider {
	p := &asyncProvider{fakeProvider: newFakeProvider(), release: make(chan struct{}), started: make(chan string, 8)}
	obj := json.RawMessage(`{"type":"object"}`)
	p.tools = append(p.tools, Tool{Name: "later", InputSchema: obj}, Tool{Name: "now", InputSchema: obj},
		Tool{Name: "sync", InputSchema: obj}, Tool{Name: "startpanic", InputSchema: obj})
	return p
}

// newAsyncSession is a session of an asyncProvider, initialized, auditing.
func newAsyncSession(t *testing.T) (*session, *asyncProvider, *bytes.Buffer) {
	audit := new(bytes.Buffer)
	opts := testOptions()
	opts.Audit = audit
	p := newAsyncProvider()
	ss := newSession(t, p, opts)
	ss.do(initLine, initializedLine)
	return ss, p, audit
}

// An AsyncProvider's call ends when the provider says, not when CallAsync returns: the
// server handles other messages meanwhile, then answers and audits the call as any other.
func TestAsyncProviderEndsLater(t *testing.T) {
	t.Parallel()
	ss, p, audit := newAsyncSession(t)

	if out := ss.do("&" + request("1", "tools/call", `{"name":"later"}`)); len(out) != 0 {
		t.Fatalf("answered before the provider ended the call: %s", out)
	}
	<-p.started
	if out := ss.do("&" + request("2", "ping", "")); len(out) != 1 || !strings.Contains(string(out[0]), `"id":2`) {
		t.Fatalf("ping while a call runs: %s", out)
	}
	close(p.release)
	ss.srv.Wait()
	out := ss.do(request("3", "tools/call", `{"name":"now"}`), request("4", "tools/call", `{"name":"sync"}`))
	if len(out) != 3 || !strings.Contains(string(out[0]), `"text":"later"`) || !strings.Contains(string(out[1]), `"text":"now"`) ||
		!strings.Contains(string(out[2]), `no such tool \"sync\"`) {
		t.Errorf("answers:\n%s", bytes.Join(out, []byte("\n")))
	}
	lines := strings.Split(strings.TrimSpace(audit.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"outcome":"ok"`) || !strings.Contains(lines[2], `"outcome":"error"`) {
		t.Errorf("audit:\n%s", audit.String())
	}
}

// A panic raised from an AsyncProvider's result, or from CallAsync itself, is answered
// and audited as a panic of the tool, and the server goes on.
func TestAsyncProviderPanics(t *testing.T) {
	t.Parallel()
	ss, _, audit := newAsyncSession(t)
	out := ss.do(request("1", "tools/call", `{"name":"panic"}`), request("2", "tools/call", `{"name":"startpanic"}`), request("3", "tools/call", `{"name":"now"}`))
	if len(out) != 3 || !strings.Contains(string(out[0]), "panicked: boom later") || !strings.Contains(string(out[1]), "panicked: boom at the start") ||
		!strings.Contains(string(out[2]), `"text":"now"`) {
		t.Errorf("answers:\n%s", bytes.Join(out, []byte("\n")))
	}
	if n := strings.Count(audit.String(), `"outcome":"panic"`); n != 2 {
		t.Errorf("%d calls audited as a panic, want 2:\n%s", n, audit.String())
	}
	ss.mu.Lock()
	logged := strings.Join(ss.logged, "\n")
	ss.mu.Unlock()
	if !strings.Contains(logged, "boom later") || !strings.Contains(logged, "boom at the start") {
		t.Errorf("logged: %q", logged)
	}
}

// A client's cancellation reaches an AsyncProvider's call through its context; what it
// ends with then is not sent, and the call is audited as cancelled.
func TestAsyncProviderCancelled(t *testing.T) {
	t.Parallel()
	ss, p, audit := newAsyncSession(t)
	ss.do("&" + request("1", "tools/call", `{"name":"later"}`))
	<-p.started
	ss.do("&" + cancel("1"))
	ss.srv.Wait()
	if out := ss.do(); len(out) != 0 {
		t.Errorf("a cancelled call was answered: %s", out)
	}
	if !strings.Contains(audit.String(), `"outcome":"cancelled"`) {
		t.Errorf("audit:\n%s", audit.String())
	}
}

// Shutdown waits for the calls an AsyncProvider has not ended, within its timeout.
func TestAsyncProviderWaited(t *testing.T) {
	t.Parallel()
	ss, p, _ := newAsyncSession(t)
	ss.do("&" + request("1", "tools/call", `{"name":"later"}`))
	<-p.started
	if ss.srv.WaitTimeout(0) {
		t.Fatal("WaitTimeout did not wait for a call not ended")
	}
	close(p.release)
	ss.srv.Wait()
	if out := ss.do(); len(out) != 1 || !strings.Contains(string(out[0]), `"text":"later"`) {
		t.Errorf("answers: %s", out)
	}
}
