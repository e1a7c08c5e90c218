package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The structural guarantees, checked on the real import graph (go list -deps -json): every
// package of the module sits on a floor of the layering table below and imports only what its
// floor may; tools reach no network and run no programs; nothing but internal/cli touches the
// process's streams.

const module = "github.com/jstk-dev/jstk/"

type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Deps         []string
	GoFiles      []string
	Dir          string
}

var listed struct {
	once sync.Once
	pkgs []pkg
	err  error
}

// listPackages lists the module's packages with go list -deps -json, once for all the tests.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	listed.once.Do(func() { listed.pkgs, listed.err = goList() })
	if listed.err != nil {
		t.Fatal(listed.err)
	}
	return listed.pkgs
}

func goList() ([]pkg, error) {
	// -pgo=off: with cmd/jstk/default.pgo, go list would list each dependency of cmd/jstk a
	// second time, as a variant built for it ("path [github.com/.../cmd/jstk]"); the import
	// graph is the same.
	cmd := exec.Command("go", "list", "-pgo=off", "-deps", "-json", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(&out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if strings.HasPrefix(p.ImportPath, module) {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) < 5 {
		return nil, fmt.Errorf("go list found only %d packages of the module", len(pkgs))
	}
	return pkgs, nil
}

// A floor is a set of packages with the same place in the house.
type floor struct {
	name string   // how the floors above name it in their may
	owns string   // what its packages own (docs/architecture.md says the same at length)
	pkgs []string // its packages, relative to the module
	// may is what its packages may import of the module: floors below it, by name, or single
	// packages of floors below it. Nothing else of the module, and never a package of its
	// own floor but those named in also. Their tests may import, besides, the packages of
	// their own floor (a test of diff checks its proofs with sample) and the test helpers.
	may []string
	// also names, for some of its packages, packages of the same floor they may import.
	also map[string][]string
	// testsMay names floors (or packages), above it too, that its tests may import besides:
	// a contract that every engine must keep is tested where it is defined.
	testsMay []string
}

// layering is the intended layering of the module, from the bottom up: the rules, not a copy
// of today's edges. A floor names only floors below it, so no import goes up or sideways.
// A package that no floor names fails TestLayering: a new package starts by taking its
// place here.
var layering = []floor{
	{name: "base", owns: "files, documents with positions, diagnostics, panics across goroutines, committed files, the heap's huge pages at start-up, groups of linked items; no JSON Schema",
		pkgs: []string{"internal/workspace", "internal/source", "internal/diag", "internal/panics", "internal/gitread", "internal/hugepages", "internal/partition"},
		// gitread reads a repository's object store through the workspace's files.
		also: map[string][]string{"internal/gitread": {"internal/workspace"}}},
	{name: "schema", owns: "JSON Schema itself: drafts, the keyword model, loading, $ref, compiling, evaluating",
		pkgs: []string{"internal/schema"},
		may:  []string{"base"},
		// The keyword model's contract test (engines_test.go) asks every engine whether it
		// handles each keyword, with hooks only schema's own tests have.
		testsMay: []string{"engines"}},
	{name: "pins", owns: "jstk.lock and the content-addressed cache it pins, read back offline",
		pkgs: []string{"internal/lockfile"},
		may:  []string{"base"}},
	{name: "holders", owns: "documents that hold schemas (OpenAPI, AsyncAPI)",
		pkgs: []string{"internal/openapi"},
		may:  []string{"base", "schema"}},
	{name: "association", owns: "which schema applies to a file and why; the offline SchemaStore it matches with",
		pkgs: []string{"internal/assoc", "internal/store"},
		may:  []string{"base", "schema"},
		// the store is a catalog of the association's kind.
		also: map[string][]string{"internal/store": {"internal/assoc"}}},
	{name: "engines", owns: "one capability each, over compiled schemas; no engine imports another but as also says",
		pkgs: []string{"internal/validate", "internal/lint", "internal/diff", "internal/bundle", "internal/infer",
			"internal/sample", "internal/coverage", "internal/schematest", "internal/catalog",
			"internal/diff/pattern", "internal/diff/algebra", "internal/diff/prove", "internal/diff/align",
			"internal/diff/search", "internal/diff/document"},
		may: []string{"base", "schema", "holders", "internal/assoc"},
		// coverage runs the tests of schematest and measures their traces; schematest's
		// findings are validate's errors (one shape for "this value fails the schema").
		// diff's rooms are packages of diff's own, imported one way, from the bottom up:
		// pattern (the automata and their solver), algebra (readers and conjunctions), prove
		// (the rule engine's proofs), align (the walk over two schemas and its changes),
		// search (instances: generation, search, shrinking), diff (Compare and its report),
		// document (two OpenAPI or AsyncAPI documents).
		also: map[string][]string{"internal/coverage": {"internal/schematest"}, "internal/schematest": {"internal/validate"},
			"internal/diff/algebra":  {"internal/diff/pattern"},
			"internal/diff/prove":    {"internal/diff/pattern", "internal/diff/algebra"},
			"internal/diff/align":    {"internal/diff/algebra", "internal/diff/prove"},
			"internal/diff/search":   {"internal/diff/pattern", "internal/diff/algebra", "internal/diff/prove", "internal/diff/align"},
			"internal/diff":          {"internal/diff/algebra", "internal/diff/align", "internal/diff/search"},
			"internal/diff/document": {"internal/diff"}},
		// the rooms' tests compare as Compare does, with the helpers of difftest
		testsMay: []string{"internal/diff/difftest"}},
	{name: "diff test helpers", owns: "what the tests of diff's rooms share: schemas from text, Compare's options, the checks of every comparison",
		pkgs: []string{"internal/diff/difftest"},
		may:  []string{"base", "schema", "internal/diff"}},
	{name: "library", owns: "the public Go API (package jsonschema): compile and validate with the engine's code, nothing of internal/ in its signatures",
		pkgs: []string{"jsonschema"},
		may:  []string{"base", "schema", "internal/store", "internal/validate"}},
	{name: "protocol", owns: "the MCP protocol core: messages in, messages out, no engine, no I/O",
		pkgs: []string{"internal/mcp"},
		may:  []string{"internal/panics"}},
	{name: "table", owns: "THE descriptor table and its adapters to the engines and to MCP",
		pkgs: []string{"internal/tools"},
		may:  []string{"base", "schema", "pins", "holders", "association", "engines", "protocol"},
		// The contract that a tool is its file plus its engine is tested where the table is:
		// a throwaway tool added in a test is used through the CLI and the MCP server.
		testsMay: []string{"surface"}},
	// The language server runs the descriptors of the table (validate and lint exactly as
	// the CLI runs them, with its loading of schemas and jstk.json) and reads the keyword
	// model for hover and completion; it has no streams of its own.
	{name: "editor", owns: "the language server: LSP messages in, messages out, over the table's engines",
		pkgs: []string{"internal/lsp"},
		may:  []string{"base", "schema", "pins", "holders", "association", "engines", "table"}},
	{name: "artefacts", owns: "what is published about jstk, generated from the table",
		pkgs: []string{"internal/manifest"},
		may:  []string{"base", "protocol", "table"}},
	{name: "release", owns: "reproducible archives and checksums of a release",
		pkgs: []string{"internal/release"},
		may:  []string{"artefacts"}},
	{name: "network", owns: "jstk fetch's downloads: the one package besides internal/cli that may use the network, imported by internal/cli only",
		pkgs: []string{"internal/fetch"},
		may:  []string{"base", "schema", "pins"}},
	{name: "surface", owns: "the command line and the stdio loops of jstk mcp and jstk lsp; the only package with the process's streams",
		pkgs: []string{"internal/cli"},
		may:  []string{"base", "schema", "pins", "holders", "association", "engines", "protocol", "table", "editor", "artefacts", "network"}},
	{name: "test helpers", owns: "reference corpora, golden files, OpenAPI fixtures: for tests and dev scripts only",
		pkgs: []string{"internal/corpora", "internal/golden", "internal/openapi/fixture", "internal/gitread/gittest"},
		may:  []string{"base"}},
	{name: "end to end", owns: "tests of the built binary (no code outside _test.go files)",
		pkgs: []string{"internal/e2e"},
		may:  []string{"base", "schema", "protocol", "table"}},
	{name: "parity", owns: "the test that the CLI, the MCP tool and the library agree (no code outside _test.go files)",
		pkgs: []string{"internal/parity"},
		may:  []string{"base", "protocol", "table", "surface", "library"}},
	{name: "jstk", owns: "the binary: cli.Main and nothing else, after the start-up advice of internal/hugepages",
		pkgs: []string{"cmd/jstk", "cmd/jstk-diff-base"},
		may:  []string{"surface", "internal/hugepages"}},
	{name: "bowtie harness", owns: "bowtie-jstk: Bowtie's protocol on stdin/stdout, answered with the public library",
		pkgs: []string{"cmd/bowtie-jstk"},
		may:  []string{"library"}},
	{name: "release program", owns: "builds the release archives",
		pkgs: []string{"cmd/release"},
		may:  []string{"artefacts", "release"}},
	{name: "store generator", owns: "packs a SchemaStore snapshot into the file jstk embeds",
		pkgs: []string{"cmd/storegen"},
		may:  []string{"base", "association"}},
	{name: "outside programs", owns: "an MCP client as anyone writes one, and dev scripts; nothing of the engines",
		pkgs: []string{"examples/mcp-client", "scripts/oasdiff-compare"},
		may:  []string{"internal/openapi/fixture"}},
}

// banned are the packages no package under internal/ but internal/cli may reach, even
// transitively: tools never touch the network or run programs.
var banned = []string{"net", "net/http", "os/exec", "crypto/tls", "net/rpc", "net/smtp"}

// network is the one package besides internal/cli that may reach the network (jstk fetch's
// downloads), never programs; networkAllowed is what it may reach of banned.
const network = "internal/fetch"

var networkAllowed = []string{"net", "net/http", "crypto/tls"}

func rel(path string) string { return strings.TrimPrefix(path, module) }

// rules resolves the table: for each package, its floor and the set it may import (and,
// in tests, the set its tests may import). It fails t on a table that contradicts itself.
func rules(t *testing.T, layering []floor) (floorOf map[string]string, may, testMay map[string]map[string]bool) {
	t.Helper()
	floorOf = map[string]string{}
	members := map[string][]string{} // floor -> packages
	var helpers []string
	for _, f := range layering {
		if _, dup := members[f.name]; dup {
			t.Fatalf("layering: two floors are named %q", f.name)
		}
		for _, p := range f.pkgs {
			if g, dup := floorOf[p]; dup {
				t.Fatalf("layering: %s is on two floors, %q and %q", p, g, f.name)
			}
			floorOf[p] = f.name
		}
		if f.name == "test helpers" {
			helpers = f.pkgs
		}
		members[f.name] = f.pkgs
	}
	may, testMay = map[string]map[string]bool{}, map[string]map[string]bool{}
	below := map[string]bool{} // floors and packages below the current floor
	for _, f := range layering {
		set := map[string]bool{}
		for _, m := range f.may {
			if !below[m] {
				t.Fatalf("layering: floor %q may import %q, which is not a floor or package below it", f.name, m)
			}
			if ps, ok := members[m]; ok {
				for _, p := range ps {
					set[p] = true
				}
			} else {
				set[m] = true
			}
		}
		for p, qs := range f.also {
			for _, q := range qs {
				if floorOf[p] != f.name || floorOf[q] != f.name || p == q {
					t.Fatalf("layering: floor %q: also lets %s import %s; both must be packages of the floor", f.name, p, q)
				}
			}
		}
		for _, p := range f.pkgs {
			own := maps.Clone(set)
			for _, q := range f.also[p] {
				own[q] = true
			}
			may[p] = own
			tm := maps.Clone(own)
			for _, q := range f.pkgs {
				tm[q] = true // a package's tests may use its floor-mates
			}
			for _, q := range helpers {
				tm[q] = true
			}
			for _, m := range f.testsMay {
				if ps, ok := members[m]; ok {
					for _, q := range ps {
						tm[q] = true
					}
				} else if floorOf[m] != "" {
					tm[m] = true
				} else {
					t.Fatalf("layering: floor %q: its tests may import %q, which is no floor or package", f.name, m)
				}
			}
			testMay[p] = tm
		}
		below[f.name] = true
		for _, p := range f.pkgs {
			below[p] = true
		}
	}
	return floorOf, may, testMay
}

// violations lists the imports of the module's packages that the layering table does not
// allow, and the packages it does not name.
func violations(t *testing.T, pkgs []pkg, layering []floor) []string {
	t.Helper()
	floorOf, may, testMay := rules(t, layering)
	var bad []string
	seen := map[string]bool{}
	for _, p := range pkgs {
		name := rel(p.ImportPath)
		seen[name] = true
		fl, ok := floorOf[name]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is on no floor of the layering table (cmd/jstk/deps_test.go): add it to the floor it belongs to", name))
			continue
		}
		check := func(imports []string, allowed map[string]bool, what string) {
			for _, imp := range imports {
				dep, ok := strings.CutPrefix(imp, module)
				if !ok || dep == name || allowed[dep] {
					continue
				}
				bad = append(bad, fmt.Sprintf("%s%s imports %s, which floor %q may not (it may: %s)",
					name, what, dep, fl, strings.Join(sortedKeys(allowed), ", ")))
			}
		}
		check(p.Imports, may[name], "")
		check(p.TestImports, testMay[name], " (in its tests)")
		check(p.XTestImports, testMay[name], " (in its tests)")
	}
	for name := range floorOf {
		if !seen[name] {
			bad = append(bad, fmt.Sprintf("the layering table names %s, which is no package of the module", name))
		}
	}
	sort.Strings(bad)
	return bad
}

func sortedKeys(m map[string]bool) []string {
	keys := []string{}
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return []string{"nothing of the module"}
	}
	return keys
}

func TestLayering(t *testing.T) {
	for _, v := range violations(t, listPackages(t), layering) {
		t.Error(v)
	}
}

// TestLayeringRules shows on a made-up graph that each kind of edge the table forbids is
// reported, and that what it allows is not.
func TestLayeringRules(t *testing.T) {
	table := []floor{
		{name: "base", pkgs: []string{"internal/source", "internal/golden"}},
		{name: "engines", pkgs: []string{"internal/lint", "internal/diff", "internal/coverage", "internal/schematest"},
			may: []string{"base"}, also: map[string][]string{"internal/coverage": {"internal/schematest"}}},
		{name: "test helpers", pkgs: []string{"internal/corpora"}, may: []string{"base"}},
		{name: "table", pkgs: []string{"internal/tools"}, may: []string{"base", "engines"}},
	}
	p := func(name string, imports, testImports []string) pkg {
		abs := func(l []string) []string {
			var out []string
			for _, s := range l {
				out = append(out, module+s)
			}
			return out
		}
		return pkg{ImportPath: module + name, Imports: append(abs(imports), "fmt"), XTestImports: abs(testImports)}
	}
	allowed := []pkg{
		p("internal/source", nil, nil),
		p("internal/golden", nil, nil),
		p("internal/lint", []string{"internal/source"}, []string{"internal/lint", "internal/diff", "internal/corpora"}),
		p("internal/diff", nil, nil),
		p("internal/coverage", []string{"internal/schematest"}, nil),
		p("internal/schematest", nil, nil),
		p("internal/corpora", []string{"internal/source"}, nil),
		p("internal/tools", []string{"internal/lint", "internal/source"}, nil),
	}
	if got := violations(t, allowed, table); len(got) > 0 {
		t.Errorf("allowed edges reported: %q", got)
	}
	tests := []struct {
		name string
		pkgs []pkg
		want string
	}{
		{"an import up", []pkg{p("internal/lint", []string{"internal/tools"}, nil)},
			`internal/lint imports internal/tools, which floor "engines" may not`},
		{"an import sideways", []pkg{p("internal/diff", []string{"internal/lint"}, nil)},
			`internal/diff imports internal/lint, which floor "engines" may not`},
		{"also is for its package only", []pkg{p("internal/lint", []string{"internal/schematest"}, nil)},
			`internal/lint imports internal/schematest, which floor "engines" may not`},
		{"a test helper outside tests", []pkg{p("internal/tools", []string{"internal/corpora"}, nil)},
			`internal/tools imports internal/corpora, which floor "table" may not`},
		{"a test importing up", []pkg{p("internal/source", nil, []string{"internal/lint"})},
			`internal/source (in its tests) imports internal/lint, which floor "base" may not`},
		{"a package on no floor", []pkg{p("internal/newthing", nil, nil)},
			`internal/newthing is on no floor of the layering table`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pkgs := append(slices.Clone(allowed), tc.pkgs...)
			got := strings.Join(violations(t, pkgs, table), "\n")
			if !strings.Contains(got, tc.want) {
				t.Errorf("violations:\n%s\nwant one saying %q", got, tc.want)
			}
		})
	}
	if got := violations(t, allowed[1:], table); len(got) != 1 || !strings.Contains(got[0], "names internal/source, which is no package") {
		t.Errorf("a table naming a package that does not exist: got %q", got)
	}
}

func TestNoNetworkNoPrograms(t *testing.T) {
	for _, p := range listPackages(t) {
		name := rel(p.ImportPath)
		if !strings.HasPrefix(name, "internal/") || name == "internal/cli" {
			continue
		}
		for _, d := range p.Deps {
			if slices.Contains(banned, d) && !(name == network && slices.Contains(networkAllowed, d)) {
				t.Errorf("%s reaches %s (only internal/cli may, and %s the network: tools never touch the network or run programs)", name, d, network)
			}
		}
	}
}

// TestNetworkOnlyFromCLI keeps the network package out of reach of every tool and engine:
// nothing but internal/cli imports it, directly or through another package, so that jstk
// fetch stays the one command that downloads and no MCP tool ever can.
func TestNetworkOnlyFromCLI(t *testing.T) {
	found := false
	for _, p := range listPackages(t) {
		name := rel(p.ImportPath)
		if name == network {
			found = true
		}
		if name == "internal/cli" || name == network || !strings.HasPrefix(name, "internal/") {
			continue
		}
		if slices.Contains(p.Deps, module+network) {
			t.Errorf("%s reaches %s: only internal/cli may import the network package", name, network)
		}
	}
	if !found {
		t.Errorf("the network package %s is no package of the module", network)
	}
	// The layering table says the same: no floor but the surface's may import it.
	for _, f := range layering {
		if f.name == "surface" || f.name == "jstk" {
			continue
		}
		if slices.Contains(f.may, "network") || slices.Contains(f.may, network) {
			t.Errorf("layering: floor %q may import %s; only internal/cli may", f.name, network)
		}
	}
}

// Printing is banned outside internal/cli: stdout is the MCP channel.
var printing = regexp.MustCompile(`\bos\.(Stdout|Stderr|Stdin|Exit)\b|\bfmt\.Print(f|ln)?\(|\bprintln\(|\blog\.(Print|Fatal|Panic)`)

func TestNoPrinting(t *testing.T) {
	for _, p := range listPackages(t) {
		name := rel(p.ImportPath)
		if !strings.HasPrefix(name, "internal/") || name == "internal/cli" {
			continue
		}
		for _, f := range p.GoFiles {
			data, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "//") {
					continue
				}
				if printing.MatchString(line) {
					t.Errorf("%s/%s:%d prints or exits outside internal/cli: %s", name, f, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}
