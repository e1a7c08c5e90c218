package parity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/cli"
	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/tools"
	"github.com/jstk-dev/jstk/internal/workspace"
	"github.com/jstk-dev/jstk/jsonschema"
)

// errorView is what the three ways must agree on about one error.
type errorView struct {
	InstanceLocation string      `json:"instanceLocation"`
	KeywordLocation  string      `json:"keywordLocation"`
	Keyword          string      `json:"keyword"`
	Message          string      `json:"message"`
	Causes           []errorView `json:"causes,omitempty"`
}

// instanceView is one instance's verdict and errors.
type instanceView struct {
	Valid  bool        `json:"valid"`
	Errors []errorView `json:"errors"`
}

type resultView struct {
	Instances []instanceView `json:"instances"`
}

func libraryErrors(in []jsonschema.Error) []errorView {
	var out []errorView
	for _, e := range in {
		out = append(out, errorView{InstanceLocation: e.InstanceLocation, KeywordLocation: e.KeywordLocation,
			Keyword: e.Keyword, Message: e.Message, Causes: libraryErrors(e.Causes)})
	}
	return out
}

var drafts = []struct {
	dir string
	uri jsonschema.Draft
}{
	{"draft4", jsonschema.Draft4}, {"draft6", jsonschema.Draft6}, {"draft7", jsonschema.Draft7},
	{"draft2019-09", jsonschema.Draft2019}, {"draft2020-12", jsonschema.Draft2020},
}

// TestSurfacesAgreeOnTheSuite: for every case of the Test-Suite's tests/ in every draft
// jstk supports (optional ones too, formats asserted in optional/format as the suite
// means), the schema is compiled once per way and all the case's instances (one NDJSON
// file) are validated: the CLI's --format json, the MCP tool's structuredContent and the
// library's ValidateBytes list the same verdicts and errors (messages, instance and
// keyword locations, keywords, causes).
func TestSurfacesAgreeOnTheSuite(t *testing.T) {
	suite := corpora.Dir(t, "JSON-Schema-Test-Suite")
	dir := t.TempDir()
	// the remotes, in the workspace of all three (MCP's is confined to it)
	remotes := filepath.Join(suite, "remotes")
	err := filepath.WalkDir(remotes, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(remotes, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, "remotes", rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	const remoteURI = "http://localhost:1234/"
	root, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(tools.NewProvider(&tools.Env{FS: root, Resolve: map[string]string{remoteURI: "remotes/"}}, tools.All()), nil)
	ctx := context.Background()
	cases, instances, mismatches := 0, 0, 0
	for _, d := range drafts {
		for _, sf := range corpora.SuiteFiles(t, suite, d.dir) {
			for ci, tc := range sf.Cases.Items() {
				desc, _ := tc.Get("description")
				sch, _ := tc.Get("schema")
				tests, _ := tc.Get("tests")
				id := fmt.Sprintf("%s/%s #%d %s", d.dir, sf.Rel, ci, desc.Str())
				var nd bytes.Buffer
				for _, test := range tests.Items() {
					data, _ := test.Get("data")
					nd.Write(source.AppendJSON(nil, data))
					nd.WriteByte('\n')
				}
				schemaFile, instFile := fmt.Sprintf("s%d.json", cases), fmt.Sprintf("i%d.ndjson", cases)
				text := source.AppendJSON(nil, sch)
				if _, declares := sch.Get("$schema"); !declares && sch.Kind() == source.Object {
					// the draft is written in the schema, the same input for all three (the
					// CLI's --draft would also force it on the remotes the schema refers to,
					// which declare theirs; the library's Options.Draft does not)
					text = append([]byte(`{"$schema":"`+d.uri+`",`), text[1:]...)
					if sch.Len() == 0 {
						text = []byte(`{"$schema":"` + d.uri + `"}`)
					}
				}
				if err := os.WriteFile(filepath.Join(dir, schemaFile), text, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, instFile), nd.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				cases++
				instances += len(tests.Items())
				assertFormat := sf.Group == "format"

				// the CLI
				argv := []string{"validate", "--format", "json", "--schema", filepath.Join(dir, schemaFile),
					"--resolve", remoteURI + "=" + filepath.Join(dir, "remotes") + "/"}
				if assertFormat {
					argv = append(argv, "--assert-format")
				}
				argv = append(argv, filepath.Join(dir, instFile))
				var stdout, stderr bytes.Buffer
				code := cli.Main(ctx, argv, cli.Streams{Stdout: &stdout, Stderr: &stderr})
				var fromCLI resultView
				if code == cli.ExitError || json.Unmarshal(stdout.Bytes(), &fromCLI) != nil {
					t.Errorf("%s: the CLI exits %d: %s%s", id, code, stdout.String(), stderr.String())
					continue
				}

				// MCP
				args := map[string]any{"schema": map[string]any{"path": schemaFile}, "instances": []any{map[string]any{"path": instFile}}}
				if assertFormat {
					args["assertFormat"] = true
				}
				fromMCP, err := callValidate(ctx, srv, args)
				if err != nil {
					t.Errorf("%s: MCP: %v", id, err)
					continue
				}

				// the library
				opts := &jsonschema.Options{AssertFormat: assertFormat, Resolve: map[string]string{remoteURI: "remotes/"}}
				s, err := jsonschema.CompileFile(ctx, filepath.Join(dir, schemaFile), opts)
				if err != nil {
					t.Errorf("%s: the library: %v", id, err)
					continue
				}
				var fromLib resultView
				for _, line := range bytes.Split(bytes.TrimSuffix(nd.Bytes(), []byte("\n")), []byte("\n")) {
					errs, err := s.ValidateBytes(ctx, line)
					if err != nil {
						t.Fatalf("%s: the library: %v", id, err)
					}
					fromLib.Instances = append(fromLib.Instances, instanceView{Valid: len(errs) == 0, Errors: libraryErrors(errs)})
				}

				for _, r := range []*resultView{&fromCLI, fromMCP, &fromLib} {
					for i := range r.Instances {
						if len(r.Instances[i].Errors) == 0 {
							r.Instances[i].Errors = nil
						}
					}
				}
				if diff := cmp.Diff(fromLib, fromCLI); diff != "" {
					mismatches++
					t.Errorf("%s: the library (-) and the CLI (+) differ:\n%s", id, diff)
				}
				if diff := cmp.Diff(fromLib, *fromMCP); diff != "" {
					mismatches++
					t.Errorf("%s: the library (-) and MCP (+) differ:\n%s", id, diff)
				}
				if len(fromLib.Instances) != len(tests.Items()) {
					t.Errorf("%s: %d instances validated, the case has %d", id, len(fromLib.Instances), len(tests.Items()))
				}
			}
		}
	}
	t.Logf("%d cases, %d instances, three ways each: %d differences", cases, instances, mismatches)
	if cases < 1000 {
		t.Errorf("only %d cases of the Test-Suite were found", cases)
	}
}

// callValidate runs the validate tool through an MCP server and returns the instances of
// its structuredContent, page after page as a client continues a cut answer.
func callValidate(ctx context.Context, srv *mcp.Server, args map[string]any) (*resultView, error) {
	var all resultView
	for page := 0; page < 1000; page++ {
		r, next, err := callValidatePage(ctx, srv, args)
		if err != nil {
			return nil, err
		}
		all.Instances = append(all.Instances, r.Instances...)
		if next < 0 {
			return &all, nil
		}
		args["offset"] = next
	}
	return nil, fmt.Errorf("more than 1000 pages")
}

// callValidatePage makes one call; next is the offset of the next page (-1: none).
func callValidatePage(ctx context.Context, srv *mcp.Server, args map[string]any) (r *resultView, next int, err error) {
	a, err := json.Marshal(args)
	if err != nil {
		return nil, 0, err
	}
	answers := make(chan []byte, 4)
	send := func(b []byte) { answers <- append([]byte(nil), b...) }
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"parity","version":"1"}}`
	srv.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"validate","arguments":`+string(a)+`,`+meta+`}}`), send)
	var answer struct {
		Result *struct {
			Content []struct{ Text string }
			Struct  json.RawMessage `json:"structuredContent"`
			IsError bool
		}
		Error any
	}
	if err := json.Unmarshal(<-answers, &answer); err != nil {
		return nil, 0, err
	}
	if answer.Result == nil || answer.Result.IsError {
		return nil, 0, fmt.Errorf("no result: %v %+v", answer.Error, answer.Result)
	}
	var res struct {
		resultView
		Page *struct{ Offset, Total, Omitted int }
	}
	if err := json.Unmarshal(answer.Result.Struct, &res); err != nil {
		return nil, 0, fmt.Errorf("structuredContent: %v", err)
	}
	next = -1
	if p := res.Page; p != nil && p.Omitted > 0 && p.Offset+len(res.Instances) < p.Total {
		if len(res.Instances) == 0 {
			return nil, 0, fmt.Errorf("a page of no instance: %s", answer.Result.Struct)
		}
		next = p.Offset + len(res.Instances)
	}
	return &res.resultView, next, nil
}
