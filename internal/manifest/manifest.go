// Package manifest owns what jstk publishes about itself besides the binary: the version of
// the next release, the names it is published under, and the artefacts generated from the
// descriptor table and that version: the VS Code extension's languageModelTools, the MCP
// Registry's server.json, and the package.json of the npm launcher and of each platform's
// binary package. Everything here is pure data in, JSON out; the CLI prints it (`jstk tools
// --manifest ...`) and the release command writes it into dist/.
package manifest

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/jstk-dev/jstk/internal/tools"
)

// Version is the version of the next release: the release command stamps it into the binary,
// and server.json and the npm packages carry it. To release another version, change it here
// and regenerate the committed artefacts (JSTK_UPDATE=1 go test ./internal/cli).
const Version = "0.1.0"

// Names jstk is published under.
const (
	// Module is the Go module; `go install Module/cmd/jstk@latest` installs jstk.
	Module = "github.com/jstk-dev/jstk"
	// Repository is the source repository, on GitHub.
	Repository = "https://github.com/jstk-dev/jstk"
	// RegistryName is the MCP Registry name: io.github.<owner>/<name>, which the registry
	// lets the GitHub owner of Repository publish.
	RegistryName = "io.github.jstk-dev/jstk"
	// NPMPackage is the npm launcher package; `npx NPMPackage mcp` starts the MCP server.
	NPMPackage = "json-schema-toolkit"
	// NPMScope holds one package per platform with that platform's binary
	// (NPMScope/linux-x64, ...), the launcher's optional dependencies.
	NPMScope = "@json-schema-toolkit"
	// Description is the one-line description of the registry entry and the npm package
	// (the registry allows at most 100 characters).
	Description = "JSON Schema tools for agents: validate, lint, breaking-change diff, bundle, infer, sample, test"
	// ToolPrefix starts the name of every VS Code language model tool: an extension's tool
	// names share one namespace with every other extension's, and plain names such as
	// "validate" or "test" would collide. ToolPrefix + the MCP tool name is the VS Code name.
	ToolPrefix = "jstk_"
)

// Platform is one release target.
type Platform struct {
	GOOS, GOARCH string
}

// Platforms are the release targets: linux, darwin and windows on amd64 and arm64.
var Platforms = []Platform{
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "amd64"}, {"linux", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// NodeOS is the platform's name in Node's process.platform and npm's "os" field.
func (p Platform) NodeOS() string {
	if p.GOOS == "windows" {
		return "win32"
	}
	return p.GOOS
}

// NodeCPU is the architecture's name in Node's process.arch and npm's "cpu" field.
func (p Platform) NodeCPU() string {
	if p.GOARCH == "amd64" {
		return "x64"
	}
	return p.GOARCH
}

// Binary is the name of the jstk executable on the platform.
func (p Platform) Binary() string {
	if p.GOOS == "windows" {
		return "jstk.exe"
	}
	return "jstk"
}

// NPMName is the name of the npm package that holds the platform's binary.
func (p Platform) NPMName() string { return NPMScope + "/" + p.NodeOS() + "-" + p.NodeCPU() }

// Encode renders v as the artefacts are committed: two-space indentation, characters such
// as < and & left as they are, and a final newline.
func Encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic("manifest: " + err.Error()) // every value here is plain data
	}
	return buf.Bytes()
}

// LanguageModelTool is one entry of a VS Code extension's contributes.languageModelTools.
type LanguageModelTool struct {
	Name                    string          `json:"name"`
	DisplayName             string          `json:"displayName"`
	ToolReferenceName       string          `json:"toolReferenceName"`
	UserDescription         string          `json:"userDescription"`
	ModelDescription        string          `json:"modelDescription"`
	CanBeReferencedInPrompt bool            `json:"canBeReferencedInPrompt"`
	Icon                    string          `json:"icon"`
	Tags                    []string        `json:"tags"`
	InputSchema             json.RawMessage `json:"inputSchema"`
}

// LanguageModelTools turns descriptors into VS Code language model tools: the name is
// ToolPrefix + the MCP name, the display name the descriptor's title, the model description
// the description MCP lists, and the input schema the one MCP lists.
func LanguageModelTools(ds []*tools.Descriptor) []LanguageModelTool {
	out := make([]LanguageModelTool, 0, len(ds))
	for _, d := range ds {
		out = append(out, LanguageModelTool{
			Name:                    ToolPrefix + d.Name,
			DisplayName:             d.Title,
			ToolReferenceName:       ToolPrefix + d.Name,
			UserDescription:         capitalize(d.Summary) + ".",
			ModelDescription:        d.Description,
			CanBeReferencedInPrompt: true,
			Icon:                    "$(json)",
			Tags:                    []string{"jstk", "json-schema", "read-only"},
			InputSchema:             d.InputSchema(),
		})
	}
	return out
}

// MCPName is the MCP tool name of a VS Code language model tool name, and whether it is one
// of jstk's.
func MCPName(languageModelTool string) (string, bool) {
	name, ok := strings.CutPrefix(languageModelTool, ToolPrefix)
	return name, ok && name != ""
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// ServerJSONSchema is the server.json schema version jstk's server.json follows.
const ServerJSONSchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// Server is the MCP Registry's description of jstk's server (server.json).
type Server struct {
	Schema      string    `json:"$schema"`
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Repository  Source    `json:"repository"`
	WebsiteURL  string    `json:"websiteUrl"`
	Version     string    `json:"version"`
	Packages    []Package `json:"packages"`
}

// Source is server.json's source repository.
type Source struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

// Package is one way to install and start the server.
type Package struct {
	RegistryType     string     `json:"registryType"`
	RegistryBaseURL  string     `json:"registryBaseUrl"`
	Identifier       string     `json:"identifier"`
	Version          string     `json:"version"`
	RuntimeHint      string     `json:"runtimeHint"`
	Transport        Transport  `json:"transport"`
	PackageArguments []Argument `json:"packageArguments"`
}

// Transport is how a client speaks to the started package.
type Transport struct {
	Type string `json:"type"`
}

// Argument is one command-line argument of the package's binary.
type Argument struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// ServerJSON is jstk's server.json: the npm package, started as `npx json-schema-toolkit mcp`
// and spoken to over stdio.
func ServerJSON() Server {
	return Server{
		Schema:      ServerJSONSchema,
		Name:        RegistryName,
		Title:       "jstk",
		Description: Description,
		Repository:  Source{URL: Repository, Source: "github"},
		WebsiteURL:  Repository + "#readme",
		Version:     Version,
		Packages: []Package{{
			RegistryType:     "npm",
			RegistryBaseURL:  "https://registry.npmjs.org",
			Identifier:       NPMPackage,
			Version:          Version,
			RuntimeHint:      "npx",
			Transport:        Transport{Type: "stdio"},
			PackageArguments: []Argument{{Type: "positional", Value: "mcp"}},
		}},
	}
}

// NPMRepository is package.json's repository field.
type NPMRepository struct {
	Type      string `json:"type"`
	URL       string `json:"url"`
	Directory string `json:"directory,omitempty"`
}

// Launcher is the package.json of the npm launcher package.
type Launcher struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	MCPName              string            `json:"mcpName"`
	License              string            `json:"license"`
	Homepage             string            `json:"homepage"`
	Repository           NPMRepository     `json:"repository"`
	Keywords             []string          `json:"keywords"`
	Bin                  map[string]string `json:"bin"`
	Files                []string          `json:"files"`
	Engines              map[string]string `json:"engines"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
}

// LauncherBin is the launcher's script, relative to its package.
const LauncherBin = "bin/jstk.js"

// LauncherPackage is the launcher's package.json: `json-schema-toolkit` and `jstk` both run
// the launcher, which runs the binary of the platform package npm installed (one optional
// dependency per platform, each restricted to its os and cpu). No install scripts.
func LauncherPackage() Launcher {
	deps := map[string]string{}
	for _, p := range Platforms {
		deps[p.NPMName()] = Version
	}
	return Launcher{
		Name:                 NPMPackage,
		Version:              Version,
		Description:          Description,
		MCPName:              RegistryName,
		License:              "Apache-2.0",
		Homepage:             Repository + "#readme",
		Repository:           NPMRepository{Type: "git", URL: "git+" + Repository + ".git", Directory: "npm/" + NPMPackage},
		Keywords:             []string{"json-schema", "validator", "lint", "breaking-changes", "mcp", "mcp-server", "cli"},
		Bin:                  map[string]string{NPMPackage: LauncherBin, "jstk": LauncherBin},
		Files:                []string{LauncherBin, "README.md", "LICENSE"},
		Engines:              map[string]string{"node": ">=18"},
		OptionalDependencies: deps,
	}
}

// PlatformPackageJSON is the package.json of a platform's binary package.
type PlatformPackageJSON struct {
	Name            string        `json:"name"`
	Version         string        `json:"version"`
	Description     string        `json:"description"`
	License         string        `json:"license"`
	Repository      NPMRepository `json:"repository"`
	OS              []string      `json:"os"`
	CPU             []string      `json:"cpu"`
	Files           []string      `json:"files"`
	PreferUnplugged bool          `json:"preferUnplugged"`
}

// PlatformBinary is where a platform package holds the binary, relative to the package.
func (p Platform) PlatformBinary() string { return "bin/" + p.Binary() }

// PlatformPackage is the package.json of the platform's binary package: npm installs it only
// on a matching os and cpu. It has no "bin" of its own (the launcher's are the commands).
func PlatformPackage(p Platform) PlatformPackageJSON {
	return PlatformPackageJSON{
		Name:        p.NPMName(),
		Version:     Version,
		Description: "The " + p.NodeOS() + " " + p.NodeCPU() + " binary of " + NPMPackage + " (jstk); install " + NPMPackage + " instead.",
		License:     "Apache-2.0",
		Repository:  NPMRepository{Type: "git", URL: "git+" + Repository + ".git"},
		OS:          []string{p.NodeOS()},
		CPU:         []string{p.NodeCPU()},
		Files:       []string{p.PlatformBinary(), "README.md", "LICENSE"},
		// Yarn PnP must unpack the package for the binary to be executable.
		PreferUnplugged: true,
	}
}
