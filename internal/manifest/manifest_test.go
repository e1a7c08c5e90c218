package manifest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/tools"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func TestPlatforms(t *testing.T) {
	var got []string
	for _, p := range Platforms {
		got = append(got, fmt.Sprintf("%s/%s %s %s %s", p.GOOS, p.GOARCH, p.NPMName(), p.PlatformBinary(), strings.Join(PlatformPackage(p).OS, "")+"-"+strings.Join(PlatformPackage(p).CPU, "")))
	}
	want := []string{
		"darwin/amd64 @json-schema-toolkit/darwin-x64 bin/jstk darwin-x64",
		"darwin/arm64 @json-schema-toolkit/darwin-arm64 bin/jstk darwin-arm64",
		"linux/amd64 @json-schema-toolkit/linux-x64 bin/jstk linux-x64",
		"linux/arm64 @json-schema-toolkit/linux-arm64 bin/jstk linux-arm64",
		"windows/amd64 @json-schema-toolkit/win32-x64 bin/jstk.exe win32-x64",
		"windows/arm64 @json-schema-toolkit/win32-arm64 bin/jstk.exe win32-arm64",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("platforms (-want +got):\n%s", diff)
	}
}

func TestPlatformPackage(t *testing.T) {
	p := PlatformPackage(Platform{"windows", "arm64"})
	if p.Version != Version || p.Name != "@json-schema-toolkit/win32-arm64" || !p.PreferUnplugged {
		t.Errorf("platform package: %+v", p)
	}
	if diff := cmp.Diff([]string{"bin/jstk.exe", "README.md", "LICENSE"}, p.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	// No "bin" and no scripts: the launcher's names are the commands, and nothing runs at
	// install time.
	var m map[string]any
	if err := json.Unmarshal(Encode(p), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"bin", "scripts", "dependencies"} {
		if _, ok := m[k]; ok {
			t.Errorf("a platform package has %q", k)
		}
	}
}

func TestLauncherPackage(t *testing.T) {
	l := LauncherPackage()
	if l.Name != NPMPackage || l.Version != Version || l.MCPName != RegistryName {
		t.Errorf("launcher: %+v", l)
	}
	if diff := cmp.Diff(map[string]string{"json-schema-toolkit": "bin/jstk.js", "jstk": "bin/jstk.js"}, l.Bin); diff != "" {
		t.Errorf("bin (-want +got):\n%s", diff)
	}
	if len(l.OptionalDependencies) != len(Platforms) {
		t.Errorf("%d optional dependencies for %d platforms", len(l.OptionalDependencies), len(Platforms))
	}
	for _, p := range Platforms {
		if l.OptionalDependencies[p.NPMName()] != Version {
			t.Errorf("optional dependency %s = %q", p.NPMName(), l.OptionalDependencies[p.NPMName()])
		}
	}
	var m map[string]any
	if err := json.Unmarshal(Encode(l), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scripts", "dependencies"} {
		if _, ok := m[k]; ok {
			t.Errorf("the launcher has %q: it must install nothing and run nothing at install time", k)
		}
	}
}

func TestServerJSON(t *testing.T) {
	s := ServerJSON()
	if n := utf8.RuneCountInString(s.Description); n == 0 || n >= 100 {
		t.Errorf("description has %d characters; the registry wants 1 to 100", n)
	}
	if owner := strings.Split(Module, "/")[1]; s.Name != "io.github."+owner+"/jstk" {
		t.Errorf("name %q does not match the module's GitHub owner %q", s.Name, owner)
	}
	if s.Version != Version || len(s.Packages) != 1 || s.Packages[0].Version != Version || s.Packages[0].Identifier != NPMPackage {
		t.Errorf("server.json: %+v", s)
	}
	if got := Encode(s); !strings.HasSuffix(string(got), "}\n") || !strings.Contains(string(got), `"$schema": "`+ServerJSONSchema+`"`) {
		t.Errorf("encoded:\n%s", got)
	}
}

func TestEncode(t *testing.T) {
	got := string(Encode(map[string]any{"a": "<b> & c", "n": []int{1}}))
	want := "{\n  \"a\": \"<b> & c\",\n  \"n\": [\n    1\n  ]\n}\n"
	if got != want {
		t.Errorf("Encode = %q, want %q", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("Encode of a channel did not panic")
		}
	}()
	Encode(make(chan int))
}

// The VS Code tools are the MCP tools: same names after the prefix, same descriptions and
// input schemas, in the same order.
func TestLanguageModelTools(t *testing.T) {
	lts := LanguageModelTools(tools.All())
	mcpTools := tools.NewProvider(&tools.Env{FS: workspace.Memory(nil)}, tools.All()).Tools()
	if len(lts) != len(mcpTools) || len(lts) == 0 {
		t.Fatalf("%d language model tools, %d MCP tools", len(lts), len(mcpTools))
	}
	for i, lt := range lts {
		mt := mcpTools[i]
		name, ok := MCPName(lt.Name)
		if !ok || name != mt.Name || lt.ToolReferenceName != lt.Name {
			t.Errorf("tool %d: %q for MCP %q", i, lt.Name, mt.Name)
		}
		if lt.ModelDescription != mt.Description || lt.DisplayName != mt.Title || string(lt.InputSchema) != string(mt.InputSchema) {
			t.Errorf("%s differs from the MCP tool", lt.Name)
		}
		if !strings.HasSuffix(lt.UserDescription, ".") || lt.UserDescription[:1] != strings.ToUpper(lt.UserDescription[:1]) {
			t.Errorf("%s: user description %q", lt.Name, lt.UserDescription)
		}
	}
}

func TestMCPName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"jstk_validate", "validate", true},
		{"jstk_list_schemas", "list_schemas", true},
		{"jstk_", "", false},
		{"validate", "validate", false},
		{"other_validate", "other_validate", false},
	} {
		got, ok := MCPName(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("MCPName(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if capitalize("") != "" {
		t.Error(`capitalize("")`)
	}
}

func ExampleServerJSON() {
	s := ServerJSON()
	fmt.Println(s.Name, s.Packages[0].RegistryType, s.Packages[0].Identifier, s.Packages[0].PackageArguments[0].Value, s.Packages[0].Transport.Type)
	// Output: io.github.jstk-dev/jstk npm json-schema-toolkit mcp stdio
}
