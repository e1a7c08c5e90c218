package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/jstk-dev/jstk/internal/mcp"
)

// greeter is a Provider with one tool.
type greeter struct{}

func (greeter) Tools() []mcp.Tool {
	return []mcp.Tool{{
		Name:        "greet",
		Description: "Greets someone by name.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		Annotations: &mcp.Annotations{ReadOnlyHint: true, IdempotentHint: true},
	}}
}

func (greeter) Call(ctx context.Context, req *mcp.CallRequest) *mcp.CallResult {
	var args struct{ Name string }
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return mcp.ErrorResult("bad arguments: %v", err)
	}
	return &mcp.CallResult{
		Content:           []mcp.Content{mcp.TextContent("Hello, " + args.Name + "!")},
		StructuredContent: map[string]string{"greeting": "Hello, " + args.Name + "!"},
	}
}

// A stdio loop hands each line to Handle and writes each sent message followed by a newline.
func ExampleServer_Handle() {
	srv := mcp.NewServer(greeter{}, &mcp.Options{
		Name: "example", Version: "1.0.0",
		NewRunID: func() string { return "run-1" },
	})
	var mu sync.Mutex
	send := func(msg []byte) { mu.Lock(); fmt.Printf("%s\n", msg); mu.Unlock() }
	ctx := context.Background()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`,
	} {
		srv.Handle(ctx, []byte(line), send)
		srv.Wait() // only to make the output order deterministic
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"capabilities":{"tools":{"listChanged":false}},"protocolVersion":"2025-06-18","serverInfo":{"name":"example","version":"1.0.0"}}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Hello, Ada!"}],"structuredContent":{"greeting":"Hello, Ada!"},"isError":false,"_meta":{"jstk/runId":"run-1"}}}
}
