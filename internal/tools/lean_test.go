package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// maxToolsList bounds the tools/list answer for the default tool set (every tool), in
// bytes as sent: an agent pays for it before it has asked anything. (Issue 31's six history
// arguments of diff, 258 bytes, were paid for by shorter descriptions.)
const maxToolsList = 16000

// maxDescription bounds a tool's description: what it answers and when to use it.
const maxDescription = 400

// toolsListAnswer is the tools/list response line of a server of ds, in the era given
// ("legacy": after initialize; "modern": the stateless 2026-07-28 era).
func toolsListAnswer(t *testing.T, ds []*Descriptor, era string) []byte {
	t.Helper()
	srv := mcp.NewServer(NewProvider(&Env{FS: workspace.Memory(nil)}, ds), nil)
	var got [][]byte
	send := func(b []byte) { got = append(got, append([]byte(nil), b...)) }
	ctx := context.Background()
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if era == "legacy" {
		srv.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), send)
		srv.Handle(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), send)
	} else {
		list = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	}
	srv.Handle(ctx, []byte(list), send)
	for _, b := range got {
		if strings.Contains(string(b), `"id":2`) {
			return b
		}
	}
	t.Fatalf("no tools/list answer in %q", got)
	return nil
}

// TestToolsListIsLean: the whole tools/list answer stays under maxToolsList bytes in both
// eras, every description under maxDescription characters, and the output schemas carry
// no prose.
func TestToolsListIsLean(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		answer := toolsListAnswer(t, All(), era)
		var res struct {
			Result struct {
				Tools []map[string]json.RawMessage
			}
		}
		if err := json.Unmarshal(answer, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Result.Tools) != len(All()) {
			t.Fatalf("%s: %d tools listed, the table has %d", era, len(res.Result.Tools), len(All()))
		}
		if len(answer) > maxToolsList {
			var sizes []string
			for _, tool := range res.Result.Tools {
				sizes = append(sizes, fmt.Sprintf("%s %d (description %d, input %d, output %d)", tool["name"],
					len(mustMarshal(t, tool)), len(tool["description"]), len(tool["inputSchema"]), len(tool["outputSchema"])))
			}
			t.Errorf("%s: tools/list answers %d bytes, over %d:\n%s", era, len(answer), maxToolsList, strings.Join(sizes, "\n"))
		}
		t.Logf("%s: tools/list answers %d bytes for %d tools", era, len(answer), len(res.Result.Tools))
	}
	for _, d := range All() {
		if n := len([]rune(d.Description)); n > maxDescription {
			t.Errorf("%s: description of %d characters, over %d", d.Name, n, maxDescription)
		}
		if strings.Contains(string(d.OutputSchema()), `"description"`) {
			t.Errorf("%s: the output schema carries prose: %s", d.Name, d.OutputSchema())
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInputNamesAreNotKeywords: no argument is named like a JSON Schema keyword, which
// naive schema sanitisers strip from properties (infer's anyOf was one).
func TestInputNamesAreNotKeywords(t *testing.T) {
	keywords := map[string]bool{}
	for _, k := range strings.Fields(`$schema $id $ref $anchor $dynamicRef $dynamicAnchor $defs $comment
		$vocabulary $recursiveRef $recursiveAnchor definitions type enum const multipleOf maximum
		exclusiveMaximum minimum exclusiveMinimum maxLength minLength pattern maxItems minItems
		uniqueItems maxContains minContains maxProperties minProperties required dependentRequired
		allOf anyOf oneOf not if then else dependentSchemas prefixItems items additionalItems contains
		properties patternProperties additionalProperties propertyNames unevaluatedItems
		unevaluatedProperties dependencies format contentEncoding contentMediaType contentSchema
		title description default deprecated readOnly writeOnly examples`) {
		keywords[k] = true
	}
	for _, d := range All() {
		var in struct{ Properties map[string]any }
		if err := json.Unmarshal(d.InputSchema(), &in); err != nil {
			t.Fatal(err)
		}
		for name := range in.Properties {
			if keywords[name] {
				t.Errorf("%s: the argument %q is a JSON Schema keyword", d.Name, name)
			}
		}
	}
}
