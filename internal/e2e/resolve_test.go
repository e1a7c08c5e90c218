package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// $ref resolution through the real `jstk mcp`: the map beats a stray copy, no file shadows a
// built-in meta-schema, a duplicate $id is an error naming both files, a neighbour is found
// by its $id's relative path, and a URI resolved from the $id index is announced in the
// result (never on stdout, which the client would reject), in both protocol eras.
func TestResolutionOverStdio(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"jstk.json":                 `{"resolve": {"https://example.com/limit.json": "lib/limit.json"}}`,
		"s.json":                    `{"$ref": "https://example.com/limit.json"}`,
		"lib/limit.json":            `{"$id": "https://example.com/limit.json", "maximum": 10}`,
		"stray/old-copy.json":       `{"$id": "https://example.com/limit.json", "maximum": 1000}`,
		"meta-user.json":            `{"$ref": "https://json-schema.org/draft/2020-12/meta/validation"}`,
		"evil/validation.json":      `{"$id": "https://json-schema.org/draft/2020-12/meta/validation", "type": "string"}`,
		"dup-user.json":             `{"$ref": "https://example.com/dup.json"}`,
		"a/dup.json":                `{"$id": "https://example.com/dup.json"}`,
		"b/dup.json":                `{"$id": "https://example.com/dup.json"}`,
		"shop/order.schema.json":    `{"$id": "https://example.com/schemas/order.schema.json", "properties": {"customer": {"$ref": "customer.schema.json"}}}`,
		"shop/customer.schema.json": `{"$id": "https://example.com/schemas/customer.schema.json", "required": ["name"]}`,
		"only-user.json":            `{"$ref": "https://example.com/only.json"}`,
		"deep/one.json":             `{"$id": "https://example.com/only.json", "type": "boolean"}`,
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	abs, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			s := startSession(t, options{era: era, root: root})
			for _, tc := range []struct {
				schema   string
				instance any
				isError  bool
				valid    bool
				want     string
			}{
				{"s.json", 500, false, false, "500 is greater than the maximum 10"},
				{"meta-user.json", map[string]any{"minimum": 1}, false, true, "1 instance: 1 valid"},
				{"dup-user.json", true, true, false, "2 files of the workspace declare this $id: a/dup.json, b/dup.json"},
				{"shop/order.schema.json", map[string]any{"customer": map[string]any{}}, false, false, `/customer: missing required property "name"`},
				{"only-user.json", true, false, true, "note: resolved https://example.com/only.json from the workspace index: deep/one.json"},
			} {
				res := s.call(t, "validate", map[string]any{"schema": pathDoc(tc.schema), "instances": []any{valueDoc(tc.instance)}})
				got := text(t, res)
				if res.IsError != tc.isError || !strings.Contains(got, tc.want) {
					t.Errorf("%s: isError %v, text:\n%s", tc.schema, res.IsError, got)
				}
				if !tc.isError {
					data, _ := json.Marshal(res.StructuredContent)
					var out struct{ Valid bool }
					if err := json.Unmarshal(data, &out); err != nil || out.Valid != tc.valid {
						t.Errorf("%s: valid %v, want %v", tc.schema, out.Valid, tc.valid)
					}
				}
				if strings.Contains(got, "file://") || strings.Contains(got, abs) {
					t.Errorf("%s: a machine path in the answer:\n%s", tc.schema, got)
				}
			}
			if strings.Contains(s.stderr.String(), "resolved ") {
				t.Errorf("the notice went to stderr, not into the result:\n%s", s.stderr)
			}
		})
	}
}
