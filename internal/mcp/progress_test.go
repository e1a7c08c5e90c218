package mcp

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"
)

// steppedClock is a clock moved by hand.
type steppedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *steppedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *steppedClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// step moves the clock, then reports progress.
type step struct {
	after           time.Duration
	progress, total float64
}

// reportProvider's one tool reports progress at its steps.
type reportProvider struct {
	clock *steppedClock
	steps []step
}

func (p *reportProvider) Tools() []Tool {
	return []Tool{{Name: "long", Description: "Reports progress.", InputSchema: json.RawMessage(`{"type":"object"}`)}}
}

func (p *reportProvider) Call(_ context.Context, req *CallRequest) *CallResult {
	for _, s := range p.steps {
		p.clock.advance(s.after)
		req.Progress(s.progress, s.total, "")
	}
	return &CallResult{Content: []Content{TextContent("done")}}
}

// TestProgressInterval: a call's progress notifications come at most one per interval (the
// reports in between are dropped), carry the total when there is one, and never go back.
func TestProgressInterval(t *testing.T) {
	clock := &steppedClock{t: time.Date(2026, 9, 2, 10, 0, 0, 0, time.UTC)}
	p := &reportProvider{clock: clock, steps: []step{
		{0, 1, 100},                      // sent: the first
		{100 * time.Millisecond, 2, 100}, // dropped: 100 ms after
		{100 * time.Millisecond, 3, 100}, // dropped: 200 ms after
		{60 * time.Millisecond, 4, 100},  // sent: 260 ms after
		{300 * time.Millisecond, 3, 100}, // dropped: it goes back
		{1 * time.Millisecond, 5, 0},     // sent: 301 ms after; no total known
		{249 * time.Millisecond, 6, 100}, // dropped
	}}
	opts := testOptions()
	opts.Now, opts.ProgressInterval = clock.Now, 0 // the default interval
	ss := newSession(t, p, opts)
	ss.do(initLine, initializedLine)
	got := ss.do(request("1", "tools/call", `{"name":"long","_meta":{"progressToken":"t"}}`))
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":100}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":4,"total":100}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":5}}`,
	}
	if len(got) != len(want)+1 {
		t.Fatalf("%d messages, want %d notifications and the answer: %q", len(got), len(want), got)
	}
	if diff := diffMessages(t, want, got[:len(want)]); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
}
