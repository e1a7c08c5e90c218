package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/manifest"
	"github.com/jstk-dev/jstk/internal/tools"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// repoRoot is the repository, seen from this package's directory.
const repoRoot = "../.."

// committed is the committed form of an artefact: the whole file, except for "vscode", whose
// generated part is contributes.languageModelTools of the extension's package.json, and
// "mcp-tools", the table between two marker lines of docs/mcp.md (the rest of those files is
// written by hand).
func committed(kind, file string, generated []byte) ([]byte, []byte, error) {
	old, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	if kind == "mcp-tools" {
		if err != nil {
			return nil, nil, err
		}
		head, rest, ok1 := strings.Cut(string(old), ToolTableBegin)
		_, tail, ok2 := strings.Cut(rest, ToolTableEnd)
		if !ok1 || !ok2 {
			return nil, nil, fmt.Errorf("the lines %q and %q that hold the generated table are missing", ToolTableBegin, ToolTableEnd)
		}
		return old, []byte(head + ToolTableBegin + string(generated) + ToolTableEnd + tail), nil
	}
	if kind != "vscode" {
		return old, generated, nil
	}
	if err != nil {
		return nil, nil, err
	}
	want, err := splice(old, []string{"contributes", "languageModelTools"}, generated)
	return old, want, err
}

// TestArtefacts fails when a committed artefact differs from what `jstk tools --manifest`
// generates from the descriptor table; JSTK_UPDATE=1 rewrites them. A change to a tool's
// description or input is thus one command away from every surface that lists it.
func TestArtefacts(t *testing.T) {
	for _, a := range Artefacts {
		var out, errOut bytes.Buffer
		if code := Main(context.Background(), []string{"tools", "--manifest", a.Kind}, Streams{Stdout: &out, Stderr: &errOut}); code != ExitOK {
			t.Fatalf("jstk tools --manifest %s exits %d: %s", a.Kind, code, errOut.String())
		}
		old, want, err := committed(a.Kind, a.File, out.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", a.File, err)
		}
		if bytes.Equal(old, want) {
			continue
		}
		if os.Getenv("JSTK_UPDATE") != "" {
			if err := os.WriteFile(filepath.Join(repoRoot, a.File), want, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote %s", a.File)
			continue
		}
		t.Errorf("%s is stale: regenerate it with JSTK_UPDATE=1 go test ./internal/cli -run TestArtefacts\n(-committed +generated)\n%s",
			a.File, cmp.Diff(string(old), string(want)))
	}
}

// TestSurfacesNameTheSameTools: MCP tools/list, the VS Code extension's languageModelTools,
// `jstk --help` and `jstk tools` name the same tools, and the MCP Registry's server.json
// points at the npm package that carries its name.
func TestSurfacesNameTheSameTools(t *testing.T) {
	var served []string
	for _, tool := range tools.NewProvider(&tools.Env{FS: workspace.Memory(nil)}, tools.All()).Tools() {
		served = append(served, tool.Name)
	}
	sort.Strings(served)

	var help bytes.Buffer
	Main(context.Background(), []string{"--help"}, Streams{Stdout: &help, Stderr: &help})
	var commands []string
	for _, line := range strings.Split(help.String(), "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(line, "  ") && f[0] != "mcp" && f[0] != "tools" && f[0] != "fetch" && f[0] != "store" && f[0] != "lsp" {
			commands = append(commands, f[0])
		}
	}
	sort.Strings(commands)

	var list bytes.Buffer
	Main(context.Background(), []string{"tools"}, Streams{Stdout: &list, Stderr: &list})
	var listed []string
	for _, line := range strings.Split(strings.TrimSpace(list.String()), "\n") {
		listed = append(listed, strings.Fields(line)[0])
	}
	sort.Strings(listed)

	var ext struct {
		Version     string `json:"version"`
		Contributes struct {
			LanguageModelTools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"languageModelTools"`
		} `json:"contributes"`
	}
	readJSON(t, "editors/vscode/package.json", &ext)
	var contributed []string
	for _, lt := range ext.Contributes.LanguageModelTools {
		name, ok := manifest.MCPName(lt.Name)
		if !ok {
			t.Errorf("the extension contributes %q, which is not %s + an MCP tool name", lt.Name, manifest.ToolPrefix)
		}
		contributed = append(contributed, name)
	}
	sort.Strings(contributed)

	for what, names := range map[string][]string{"jstk --help": commands, "jstk tools": listed, "editors/vscode/package.json": contributed} {
		if diff := cmp.Diff(served, names); diff != "" {
			t.Errorf("MCP tools/list (-) and %s (+) name different tools:\n%s", what, diff)
		}
	}

	var server struct {
		Name     string `json:"name"`
		Version  string `json:"version"`
		Packages []struct {
			RegistryType, Identifier, Version string
			Transport                         struct{ Type string }
			PackageArguments                  []struct{ Type, Value string }
		} `json:"packages"`
	}
	readJSON(t, "server.json", &server)
	var npm struct {
		Name, Version, MCPName string
		Bin                    map[string]string
		OptionalDependencies   map[string]string
	}
	readJSON(t, "npm/"+manifest.NPMPackage+"/package.json", &npm)
	if len(server.Packages) != 1 {
		t.Fatalf("server.json lists %d packages, want the npm package", len(server.Packages))
	}
	p := server.Packages[0]
	for _, c := range []struct{ what, got, want string }{
		{"server.json name", server.Name, manifest.RegistryName},
		{"server.json name (io.github.<owner of the module>/jstk)", server.Name, "io.github." + strings.Split(manifest.Module, "/")[1] + "/jstk"},
		{"package.json mcpName", npm.MCPName, server.Name},
		{"server.json package", p.RegistryType + ":" + p.Identifier, "npm:" + npm.Name},
		{"server.json version", server.Version, manifest.Version},
		{"server.json package version", p.Version, npm.Version},
		{"package.json version", npm.Version, manifest.Version},
		{"server.json transport", p.Transport.Type, "stdio"},
		{"server.json arguments", fmt.Sprint(p.PackageArguments), "[{positional mcp}]"},
		{"package.json bin", fmt.Sprint(npm.Bin), "map[json-schema-toolkit:bin/jstk.js jstk:bin/jstk.js]"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	for _, pl := range manifest.Platforms {
		if npm.OptionalDependencies[pl.NPMName()] != manifest.Version {
			t.Errorf("package.json: optional dependency %s is %q, want %s", pl.NPMName(), npm.OptionalDependencies[pl.NPMName()], manifest.Version)
		}
	}
}

// TestServerJSONIsValid validates server.json against the MCP Registry's schema with jstk
// itself, and shows that the check can fail: a description over the registry's 100
// characters is refused.
func TestServerJSONIsValid(t *testing.T) {
	schema := filepath.Join(corpora.Dir(t, "mcp-registry"), "server.schema.2025-12-11.json")
	run := func(file string) (int, string) {
		var out bytes.Buffer
		code := Main(context.Background(), []string{"validate", "--schema", schema, file}, Streams{Stdout: &out, Stderr: &out})
		return code, out.String()
	}
	if code, out := run(filepath.Join(repoRoot, "server.json")); code != ExitOK {
		t.Errorf("jstk validate server.json exits %d:\n%s", code, out)
	}
	bad := manifest.ServerJSON()
	bad.Description = strings.Repeat("x", 101)
	file := filepath.Join(t.TempDir(), "server.json")
	if err := os.WriteFile(file, manifest.Encode(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run(file); code != ExitFindings || !strings.Contains(out, "/description") {
		t.Errorf("a 101-character description: exit %d, want 1 naming /description:\n%s", code, out)
	}
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// member is one member of a JSON object, its value kept as written.
type member struct {
	key   string
	value json.RawMessage
}

// members reads the members of a JSON object in their order.
func members(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var ms []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var m member
		m.key = tok.(string)
		if err := dec.Decode(&m.value); err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// splice sets the member at path (a chain of object members) to value, keeping the order
// of every other member, and indents the result as npm does.
func splice(doc []byte, path []string, value []byte) ([]byte, error) {
	compact, err := setMember(doc, path, value)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func setMember(doc []byte, path []string, value []byte) ([]byte, error) {
	if len(path) == 0 {
		var c bytes.Buffer
		err := json.Compact(&c, value)
		return c.Bytes(), err
	}
	ms, err := members(doc)
	if err != nil {
		return nil, err
	}
	found := false
	for i := range ms {
		if ms[i].key == path[0] {
			if ms[i].value, err = setMember(ms[i].value, path[1:], value); err != nil {
				return nil, err
			}
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("no member %q", path[0])
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(m.key)
		b.Write(key)
		b.WriteByte(':')
		if err := json.Compact(&b, m.value); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// TestActionIsValid validates action.yml against SchemaStore's schema of GitHub Action
// metadata with jstk itself (its composite steps, inputs and branding), and shows that the
// check can fail on a step without a shell.
func TestActionIsValid(t *testing.T) {
	schema := filepath.Join(corpora.Dir(t, "schemastore-dev"), "src", "schemas", "json", "github-action.json")
	run := func(file string) (int, string) {
		var out bytes.Buffer
		code := Main(context.Background(), []string{"validate", "--schema", schema, file}, Streams{Stdout: &out, Stderr: &out})
		return code, out.String()
	}
	if code, out := run(filepath.Join(repoRoot, "action.yml")); code != ExitOK {
		t.Errorf("jstk validate action.yml exits %d:\n%s", code, out)
	}
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "action.yml")
	if err := os.WriteFile(bad, bytes.ReplaceAll(data, []byte("      shell: bash\n"), nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run(bad); code != ExitFindings || !strings.Contains(out, `missing required property "shell"`) {
		t.Errorf("steps without a shell: exit %d, want 1 naming shell:\n%s", code, out)
	}
}
