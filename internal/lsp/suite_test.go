package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Every required (non-optional) case of the JSON-Schema-Test-Suite, as an editor sees it:
// each case's schema is a file that jstk.json's "schemas" map associates with the case's
// instances, and each instance is opened as a document. The server must publish diagnostics
// exactly when the case says the instance is invalid. The rates are kept in
// testdata/suite-rate.txt with every miss and its message (JSTK_UPDATE=1 rewrites it), so
// that any change of a verdict shows there.
func TestJSONSchemaTestSuiteAsDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole suite in -short mode")
	}
	dir := corpora.Dir(t, "JSON-Schema-Test-Suite")
	remotes, err := filepath.Abs(filepath.Join(dir, "remotes"))
	if err != nil {
		t.Fatal(err)
	}
	drafts := []struct{ dir, meta string }{
		{"draft4", "http://json-schema.org/draft-04/schema#"},
		{"draft6", "http://json-schema.org/draft-06/schema#"},
		{"draft7", "http://json-schema.org/draft-07/schema#"},
		{"draft2019-09", "https://json-schema.org/draft/2019-09/schema"},
		{"draft2020-12", "https://json-schema.org/draft/2020-12/schema"},
	}
	var report strings.Builder
	var misses []string
	for _, d := range drafts {
		ws := t.TempDir()
		type inst struct {
			uri, text, id string
			valid         bool
		}
		var insts []inst
		mapping := map[string]string{}
		n := 0
		for _, sf := range corpora.SuiteFiles(t, dir, d.dir) {
			if sf.Group != "core" {
				continue
			}
			for ci, tc := range sf.Cases.Items() {
				sch, _ := tc.Get("schema")
				desc, _ := tc.Get("description")
				text := source.AppendJSON(nil, sch)
				if sch.Kind() == source.Object && !sch.Has("$schema") {
					// The case's draft, said as a schema file says it.
					var b source.ObjectBuilder
					b.Set("$schema", source.StringValue(d.meta))
					for j := 0; j < sch.Len(); j++ {
						k, v := sch.Member(j)
						b.Set(k.Str(), v)
					}
					text = source.AppendJSON(nil, b.Value())
				}
				caseDir := fmt.Sprintf("c%d", n)
				n++
				if err := os.MkdirAll(filepath.Join(ws, caseDir), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(ws, caseDir, "schema.json"), text, 0o644); err != nil {
					t.Fatal(err)
				}
				mapping[caseDir+"/schema.json"] = caseDir + "/i*.json"
				tests, _ := tc.Get("tests")
				for ti, test := range tests.Items() {
					data, _ := test.Get("data")
					valid, _ := test.Get("valid")
					td, _ := test.Get("description")
					insts = append(insts, inst{
						uri:   "file://" + filepath.ToSlash(filepath.Join(ws, caseDir, fmt.Sprintf("i%d.json", ti))),
						text:  string(source.AppendJSON(nil, data)),
						id:    fmt.Sprintf("%s/%s #%d %s / %s", d.dir, sf.Rel, ci, desc.Str(), td.Str()),
						valid: valid.Bool()})
				}
			}
		}
		cfg, _ := json.Marshal(map[string]any{"resolve": map[string]string{"http://localhost:1234/": remotes}, "schemas": mapping})
		if err := os.WriteFile(filepath.Join(ws, "jstk.json"), cfg, 0o644); err != nil {
			t.Fatal(err)
		}
		ss := newSession(t, workspace.OS(), nil)
		ss.srv.opts.Root = ws
		ss.do(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file://` + filepath.ToSlash(ws) + `"}}`)
		right := 0
		for _, in := range insts {
			open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
				"textDocument": map[string]any{"uri": in.uri, "languageId": "json", "version": 1, "text": in.text}}})
			close, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didClose", "params": map[string]any{
				"textDocument": map[string]any{"uri": in.uri}}})
			out := ss.do(string(open))
			ss.do(string(close))
			var pub struct {
				Params publishDiagnosticsParams `json:"params"`
			}
			if len(out) != 1 || json.Unmarshal(out[0], &pub) != nil {
				t.Fatalf("%s: the server sent %d messages: %s", in.id, len(out), out)
			}
			if (len(pub.Params.Diagnostics) == 0) == in.valid {
				right++
				continue
			}
			msg := "no diagnostic"
			if len(pub.Params.Diagnostics) > 0 {
				msg = pub.Params.Diagnostics[0].Message
			}
			misses = append(misses, fmt.Sprintf("  %s: valid=%v, but %s", in.id, in.valid, strings.ReplaceAll(msg, ws, "WS")))
		}
		ss.srv.close()
		fmt.Fprintf(&report, "%s: %d of %d instances right (%.1f%%)\n", d.dir, right, len(insts), 100*float64(right)/float64(len(insts)))
	}
	if len(misses) > 0 {
		fmt.Fprintf(&report, "\nThe instances it gets wrong (jstk validate --schema says the same: the remote documents have no $schema and are read as 2020-12):\n%s\n", strings.Join(misses, "\n"))
	}
	golden.Check(t, "testdata/suite-rate.txt", strings.ReplaceAll(report.String(), dir, "SUITE"))
}
