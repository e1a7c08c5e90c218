package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// gateProvider answers each call itself through the call's AnswerGate, as the engine
// process of jstk mcp does: "sent" binds a gate whose answer has gone (a cancellation
// then loses), "open" one that the client's cancellation stops. Each call waits for
// release, so that a cancellation can come while it runs.
type gateProvider struct {
	release chan struct{}
	gates   chan *AnswerGate
}

func (p *gateProvider) Tools() []Tool {
	return []Tool{{Name: "sent", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "open", InputSchema: json.RawMessage(`{"type":"object"}`)}}
}

func (p *gateProvider) Call(ctx context.Context, req *CallRequest) *CallResult {
	if req.Answer == nil {
		p.gates <- nil
		return &CallResult{Content: []Content{TextContent("no gate")}}
	}
	sent := req.Name == "sent"
	bound := req.Answer.Bind(func() bool { return !sent }, func() bool { return sent })
	p.gates <- req.Answer // bound
	if !bound {
		return ErrorResult("cancelled before it started")
	}
	<-p.release
	if sent {
		return &CallResult{Sent: true, IsError: true}
	}
	return &CallResult{Content: []Content{TextContent("answered by the server")}}
}

// A provider that sent the answer itself: the server sends nothing, audits the call with
// the provider's IsError, and a cancellation that comes after the answer is ignored; one
// that comes first stops the answer, as for any call.
func TestProviderSentAnswer(t *testing.T) {
	t.Parallel()
	var audit bytes.Buffer
	opts := testOptions()
	opts.Audit = &audit
	p := &gateProvider{release: make(chan struct{}), gates: make(chan *AnswerGate, 4)}
	ss := newSession(t, p, opts)
	ss.do(initLine, initializedLine)

	ss.do("&" + request("1", "tools/call", `{"name":"sent"}`))
	if g := <-p.gates; g == nil {
		t.Fatal("a call without progress has no AnswerGate")
	}
	ss.do("&" + cancel("1")) // comes after the answer: the call is answered, not cancelled
	close(p.release)
	ss.srv.Wait()
	if out := ss.do(); len(out) != 0 {
		t.Errorf("the server sent an answer the provider sent: %s", out)
	}

	p.release = make(chan struct{})
	ss.do("&" + request("2", "tools/call", `{"name":"open"}`))
	<-p.gates
	ss.do("&" + cancel("2"))
	close(p.release)
	ss.srv.Wait()
	if out := ss.do(); len(out) != 0 {
		t.Errorf("a cancelled call was answered: %s", out)
	}

	ss.do(request("3", "tools/call", `{"name":"open","_meta":{"progressToken":"t"}}`))
	if g := <-p.gates; g != nil {
		t.Error("a call with progress has an AnswerGate: its notifications must come before the answer")
	}

	lines := strings.Split(strings.TrimSpace(audit.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"outcome":"error"`) || !strings.Contains(lines[1], `"outcome":"cancelled"`) {
		t.Errorf("audit:\n%s", audit.String())
	}
}

func TestAnswerGate(t *testing.T) {
	var nilGate *AnswerGate
	if !nilGate.cancelAnswer() {
		t.Error("a call without a gate is not cancelled")
	}
	g := new(AnswerGate)
	if !g.cancelAnswer() || g.Bind(func() bool { return true }, nil) {
		t.Error("a gate cancelled before it was bound was bound")
	}
	g = new(AnswerGate)
	stopped := false
	if !g.Bind(func() bool { stopped = true; return true }, func() bool { return false }) || g.answered() || !g.cancelAnswer() || !stopped {
		t.Error("a bound gate did not stop the provider's answer")
	}
	g = new(AnswerGate)
	if !g.Bind(func() bool { return false }, func() bool { return true }) || !g.answered() || g.cancelAnswer() {
		t.Error("a cancellation after the provider's answer won")
	}
}

// A client that has the answer of a call may use its id again at once, even before the
// provider that sent that answer returns; an id in flight whose answer was not sent is
// still refused.
func TestIDAgainAfterProviderSentAnswer(t *testing.T) {
	t.Parallel()
	p := &gateProvider{release: make(chan struct{}), gates: make(chan *AnswerGate, 4)}
	opts := testOptions()
	opts.MaxConcurrent = 4 // both calls run at once
	ss := newSession(t, p, opts)
	ss.do(initLine, initializedLine)
	ss.do("&" + request("5", "tools/call", `{"name":"sent"}`))
	<-p.gates
	if out := ss.do("&" + request("5", "tools/call", `{"name":"open"}`)); len(out) != 0 {
		t.Fatalf("the id of an answered call was refused: %q", out)
	}
	<-p.gates
	if out := ss.do("&" + request("5", "tools/call", `{"name":"open"}`)); len(out) != 1 ||
		!strings.Contains(string(out[0]), "already used by a request still in progress") {
		t.Errorf("the id of a call not answered: %q", out)
	}
	close(p.release)
	ss.srv.Wait()
	if out := ss.do(); len(out) != 1 || !strings.Contains(string(out[0]), "answered by the server") {
		t.Errorf("answers: %q", out)
	}
}
