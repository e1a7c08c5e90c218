package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArchitecturePage keeps docs/architecture.md true to the code: every floor of the
// layering table and every package on it is named; every path it names exists; every Go
// name it gives in backquotes is declared where it says: `pkg.Name` in that package,
// `(*T).name` and `T.Name` on that type, `name` (`file.go`) in that file, `TestX` and
// `camelCase` somewhere (a camelCase name may also be a JSON member, `structuredContent`).
func TestArchitecturePage(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	page, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	src := moduleSources(t, root)
	all := strings.Join(values(src), "\n")

	for _, f := range layering {
		if !regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(f.name) + ` \|`).MatchString(text) {
			t.Errorf("the floor %q has no row in docs/architecture.md", f.name)
		}
		for _, p := range f.pkgs {
			if !strings.Contains(text, "`"+p+"`") && !strings.Contains(text, "`"+filepath.Base(p)+"`") &&
				!strings.Contains(text, "`"+strings.TrimPrefix(p, "internal/")+"`") {
				t.Errorf("docs/architecture.md does not name %s", p)
			}
		}
	}

	var (
		path       = regexp.MustCompile(`^(internal|cmd|examples|scripts)/[\w./-]*$`)
		method     = regexp.MustCompile(`^\(\*(?:\w+\.)?(\w+)\)\.(\w+)$`)
		qualified  = regexp.MustCompile(`^(\w+)\.(\w+)(?:\(\))?$`)
		inFile     = regexp.MustCompile("`(\\w+)` \\(`((?:internal|cmd)/[\\w/]+\\.go)`\\)")
		backquoted = regexp.MustCompile("`([^`\n]+)`")
		fileName   = regexp.MustCompile(`^[\w-]*\.(go|json|md|txtar|yaml)$`)
		camel      = regexp.MustCompile(`^[a-z]+[A-Z]\w*$`)
	)
	declared := func(files map[string]string, name string) bool {
		decl := regexp.MustCompile(`(?m)^(func (\([^)]*\) )?|type |var |const |\t)` + regexp.QuoteMeta(name) + `\b`)
		for _, s := range files {
			if strings.Contains(s, name) && decl.MatchString(s) {
				return true
			}
		}
		return false
	}
	checked := 0
	for _, m := range backquoted.FindAllStringSubmatch(text, -1) {
		tok := m[1]
		switch {
		case path.MatchString(tok):
			if _, err := os.Stat(filepath.Join(root, strings.TrimSuffix(tok, "/"))); err != nil {
				t.Errorf("docs/architecture.md names %s, which does not exist", tok)
			}
		case method.MatchString(tok):
			mm := method.FindStringSubmatch(tok)
			if !regexp.MustCompile(`(?m)^func \(\w+ \*?` + mm[1] + `\) ` + mm[2] + `\b`).MatchString(all) {
				t.Errorf("docs/architecture.md names %s: no method %s of %s", tok, mm[2], mm[1])
			}
		case fileName.MatchString(tok):
			continue // a file named without its directory: not checked
		case qualified.MatchString(tok):
			q := qualified.FindStringSubmatch(tok)
			files := packageFiles(src, q[1])
			if files == nil && q[1] == strings.ToLower(q[1]) {
				continue // a package of the standard library
			}
			if files != nil {
				if !declared(files, q[2]) {
					t.Errorf("docs/architecture.md names %s: package %s declares no %s", tok, q[1], q[2])
				}
			} else if !typeHas(src, q[1], q[2]) {
				t.Errorf("docs/architecture.md names %s: no package or type %s with %s", tok, q[1], q[2])
			}
		case strings.HasPrefix(tok, "Test") && regexp.MustCompile(`^Test\w+$`).MatchString(tok):
			if !declared(src, tok) {
				t.Errorf("docs/architecture.md names %s, which no test declares", tok)
			}
		case camel.MatchString(tok):
			if !declared(src, tok) && !strings.Contains(all, `json:"`+tok) {
				t.Errorf("docs/architecture.md names %s, which the code neither declares nor has as a JSON name", tok)
			}
		default:
			continue
		}
		checked++
	}
	for _, m := range inFile.FindAllStringSubmatch(text, -1) {
		s, ok := src[m[2]]
		if !ok || !declared(map[string]string{m[2]: s}, m[1]) {
			t.Errorf("docs/architecture.md says %s is in %s: it is not", m[1], m[2])
		}
		checked++
	}
	t.Logf("%d names and paths of docs/architecture.md checked", checked)
	if checked < 40 {
		t.Errorf("only %d names of docs/architecture.md checked: has the page lost its references?", checked)
	}
}

// moduleSources reads the module's Go files, by path relative to root.
func moduleSources(t *testing.T, root string) map[string]string {
	t.Helper()
	src := map[string]string{}
	for _, dir := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			src[filepath.ToSlash(rel)] = string(data)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return src
}

// packageFiles are the files of the package internal/name (nil when there is none).
func packageFiles(src map[string]string, name string) map[string]string {
	var files map[string]string
	for p, s := range src {
		if filepath.Dir(p) == "internal/"+name {
			if files == nil {
				files = map[string]string{}
			}
			files[p] = s
		}
	}
	return files
}

// typeHas reports whether a type T of the module has a method or member named name.
func typeHas(src map[string]string, typ, name string) bool {
	method := regexp.MustCompile(`(?m)^func \(\w+ \*?` + typ + `\) ` + name + `\b`)
	for _, s := range src {
		if method.MatchString(s) {
			return true
		}
		if i := strings.Index(s, "\ntype "+typ+" "); i >= 0 {
			body := s[i:]
			if j := strings.Index(body, "\n}\n"); j >= 0 {
				body = body[:j]
			}
			if regexp.MustCompile(`(?m)^\t` + name + `\b`).MatchString(body) {
				return true
			}
		}
	}
	return false
}

func values(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestWhereToAddATool keeps the page's "A tool" true to the descriptor: it names every
// exported field of tools.Descriptor (a fact of a tool that the table holds is one the page
// tells a new tool to give), the pager a report that pages implements, and the tests that
// prove a tool needs nothing more (TestANewToolIsItsFileAndItsEngine, TestNoToolTables).
func TestWhereToAddATool(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	page, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)\n- \*\*A tool\*\*:(.*?)\n- \*\*`).FindSubmatch(page)
	if m == nil {
		t.Fatal(`docs/architecture.md has no "- **A tool**:" under "Where to add"`)
	}
	bullet := string(m[1])
	src, err := os.ReadFile(filepath.Join(root, "internal", "tools", "tools.go"))
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)\ntype Descriptor struct \{\n(.*?)\n\}\n`).FindSubmatch(src)
	if body == nil {
		t.Fatal("internal/tools/tools.go declares no Descriptor struct")
	}
	fields := regexp.MustCompile(`(?m)^\t([A-Z]\w*(?:, [A-Z]\w*)*) `).FindAllSubmatch(body[1], -1)
	if len(fields) < 10 {
		t.Fatalf("only %d exported fields of Descriptor found: has its declaration changed shape?", len(fields))
	}
	for _, f := range fields {
		for _, name := range strings.Split(string(f[1]), ", ") {
			if !strings.Contains(bullet, "`"+name+"`") && !strings.Contains(bullet, "`Descriptor."+name+"`") {
				t.Errorf(`docs/architecture.md's "A tool" does not name the descriptor's field %s`, name)
			}
		}
	}
	for _, want := range []string{"`diag.Pager`", "`TestANewToolIsItsFileAndItsEngine`", "`TestNoToolTables`", "`Report.ExitCode`"} {
		if !strings.Contains(bullet, want) {
			t.Errorf(`docs/architecture.md's "A tool" does not name %s`, want)
		}
	}
}

// TestNoToolTables: nothing outside a tool's own file keeps a table of the tools (a map
// keyed by their names, a case per tool): what differs from one tool to another is a field
// of its descriptor, so that a new tool is its file plus its engine. jstk.json's "lint"
// block, read in internal/tools/config.go, is a key of the configuration's format.
func TestNoToolTables(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	src := moduleSources(t, root)
	var names []string
	nameRE := regexp.MustCompile(`(?m)^\t\tName:\s+"([a-z][a-z0-9_]*)",`)
	aliasRE := regexp.MustCompile(`(?m)^\t\tAliases:\s+\[\]string\{([^}]*)\}`)
	for p, s := range src {
		if !strings.HasPrefix(p, "internal/tools/") || strings.HasSuffix(p, "_test.go") {
			continue
		}
		for _, m := range nameRE.FindAllStringSubmatch(s, -1) {
			names = append(names, m[1])
		}
		for _, m := range aliasRE.FindAllStringSubmatch(s, -1) {
			for _, a := range strings.Split(m[1], ",") {
				names = append(names, strings.Trim(strings.TrimSpace(a), `"`))
			}
		}
	}
	if len(names) < 10 {
		t.Fatalf("only %d tool names found in internal/tools: has the descriptors' shape changed?", len(names))
	}
	alt := strings.Join(names, "|")
	table := regexp.MustCompile(`"(` + alt + `)"\s*:|case "(` + alt + `)"|\[\s*"(` + alt + `)"\s*\]|[!=]= "(` + alt + `)"`)
	allowed := map[string]bool{"internal/tools/config.go: case \"lint\"": true}
	for p, s := range src {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		for i, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for _, m := range table.FindAllString(line, -1) {
				if !allowed[p+": "+m] {
					t.Errorf("%s:%d: %s: a table of the tools outside their files; make it a field of tools.Descriptor", p, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}
