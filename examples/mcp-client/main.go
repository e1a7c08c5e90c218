// Command mcp-client is a short MCP client for jstk, written with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk). It starts `jstk mcp` as a subprocess over stdio,
// lists the tools it serves, and calls validate on the shipped examples, printing the report
// a model would read and the structured verdict an agent would branch on.
//
// Run it from the repository root:
//
//	go run ./examples/mcp-client
//
// By default it starts the server with `go run ./cmd/jstk mcp --root examples`. To use a
// built binary instead, or another workspace:
//
//	go build -o bin/jstk ./cmd/jstk
//	go run ./examples/mcp-client -jstk bin/jstk -root examples
//
// It exits 0 when the call ran (whatever the verdict), 1 when it could not.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	jstk := flag.String("jstk", "", "a jstk binary to run (default: go run ./cmd/jstk)")
	root := flag.String("root", "examples", "the workspace the server may read")
	flag.Parse()
	if err := run(*jstk, *root); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-client:", err)
		os.Exit(1)
	}
}

func run(jstk, root string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cmd := exec.Command("go", "run", "./cmd/jstk", "mcp", "--root", root)
	if jstk != "" {
		cmd = exec.Command(jstk, "mcp", "--root", root)
	}
	cmd.Stderr = os.Stderr // the server's start-up report and diagnostics

	client := mcp.NewClient(&mcp.Implementation{Name: "jstk-example-client", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("starting jstk mcp: %w", err)
	}
	defer session.Close() // closes the server's stdin; it exits on EOF
	fmt.Printf("connected, protocol version %s\n\ntools:\n", session.InitializeResult().ProtocolVersion)

	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		fmt.Printf("  %-10s %s\n", tool.Name, tool.Title)
	}

	// Document arguments are objects with exactly one of path (inside the workspace),
	// value (the document as JSON) or text (JSON or YAML text).
	res, err := session.CallTool(ctx, &mcp.CallToolParams{
		Name: "validate",
		Arguments: map[string]any{
			"schema": map[string]any{"path": "order.schema.json"},
			"instances": []any{
				map[string]any{"path": "orders.ndjson"},
				map[string]any{"path": "orders-with-errors.ndjson"},
				map[string]any{"path": "order.yaml"},
				map[string]any{"value": map[string]any{"id": "ORD-000009", "status": "lost"}},
			},
		},
	})
	if err != nil {
		return fmt.Errorf("calling validate: %w", err) // a protocol error
	}
	fmt.Println("\nvalidate report:")
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			fmt.Print(t.Text)
		}
	}
	if res.IsError { // the tool could not run (bad arguments, unreadable schema, ...)
		return fmt.Errorf("validate could not run")
	}
	// Findings are data, not errors: branch on the structured result.
	var verdict struct {
		Valid   bool `json:"valid"`
		Summary struct {
			Total, Valid, Invalid, Unreadable int
		} `json:"summary"`
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(raw, &verdict)
	}
	if err != nil {
		return fmt.Errorf("reading structuredContent: %w", err)
	}
	fmt.Printf("\nstructured verdict: valid=%v total=%d valid=%d invalid=%d unreadable=%d (run %v)\n",
		verdict.Valid, verdict.Summary.Total, verdict.Summary.Valid, verdict.Summary.Invalid,
		verdict.Summary.Unreadable, res.Meta["jstk/runId"])
	return nil
}
