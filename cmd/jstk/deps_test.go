package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The structural guarantees, checked on the real import graph (go list -deps -json):
// tools reach no network and run no programs, engines import no surface, the protocol core
// imports no engine, and nothing but internal/cli touches the process's streams.

const module = "github.com/jstk-dev/jstk/"

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	GoFiles    []string
	Dir        string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(&out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.ImportPath, module) {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages of the module", len(pkgs))
	}
	return pkgs
}

// engines are the packages that hold schema logic; surfaces are the ways in.
var (
	surfaces = []string{"internal/cli", "internal/tools", "internal/mcp", "internal/manifest"}
	// forbidden reaches: no package under internal/ but internal/cli may depend on these,
	// even transitively.
	banned = []string{"net", "net/http", "os/exec", "crypto/tls", "net/rpc", "net/smtp"}
)

func rel(path string) string { return strings.TrimPrefix(path, module) }

func TestDependencies(t *testing.T) {
	for _, p := range listPackages(t) {
		name := rel(p.ImportPath)
		if !strings.HasPrefix(name, "internal/") || name == "internal/cli" {
			continue
		}
		for _, d := range p.Deps {
			for _, b := range banned {
				if d == b {
					t.Errorf("%s reaches %s (only internal/cli may: tools never touch the network or run programs)", name, b)
				}
			}
		}
		isSurface := false
		for _, s := range surfaces {
			isSurface = isSurface || name == s
		}
		for _, imp := range p.Imports {
			dep := rel(imp)
			if !strings.HasPrefix(dep, "internal/") {
				continue
			}
			switch {
			case !isSurface && (dep == "internal/cli" || dep == "internal/tools" || dep == "internal/mcp"):
				t.Errorf("engine %s imports the surface %s", name, dep)
			case name == "internal/mcp":
				t.Errorf("the protocol core internal/mcp imports %s (it must stay engine-free)", dep)
			case name == "internal/tools" && dep == "internal/cli":
				t.Errorf("internal/tools imports internal/cli")
			}
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
