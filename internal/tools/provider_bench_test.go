package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// BenchmarkProviderCallValidateInline: the engine process's part of a warm `jstk mcp` call
// of validate with an inline schema and instance (the schema cached after the first call):
// the arguments' checks and decoding, the run, the result. The pipes and the server's
// JSON-RPC are measured end to end by internal/e2e's BenchmarkValidateRoundTrip.
func BenchmarkProviderCallValidateInline(b *testing.B) {
	fsys, err := workspace.Root(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	env := &Env{FS: fsys, Cache: NewSchemaCache(64), Index: NewIndex(fsys, []string{"."}, nil)}
	d, _ := Lookup("validate")
	p := NewProvider(env, []*Descriptor{d})
	req := &mcp.CallRequest{Name: "validate", RunID: "r1",
		Arguments: json.RawMessage(`{"schema":{"value":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}},"instances":[{"value":{"a":1}}]}`)}
	ctx := context.Background()
	for b.Loop() {
		res := p.Call(ctx, req)
		if res.IsError {
			b.Fatalf("%+v", res.Content)
		}
		if _, err := json.Marshal(res.StructuredContent); err != nil {
			b.Fatal(err)
		}
	}
}
