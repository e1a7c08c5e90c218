package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// indexTreeFiles is the size of the benchmark tree: the default bound of the $id index.
const indexTreeFiles = 20000

// indexTree writes a tree of 20,000 schema files (200 folders of 100; one in ten declares
// an $id, the last of them the one s.json refers to), with at its top s.json, which only
// the $id index resolves, and local.json, which refers only into itself.
func indexTree(b *testing.B) string {
	dir := b.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	{
		write("s.json", `{"$ref": "https://example.com/pkg199/f090.json"}`)
		write("local.json", `{"$ref": "#/$defs/a", "$defs": {"a": {"type": "object"}}}`)
		write("instance.json", `{"a": "x", "b": 1}`)
		n := 3
		for d := 0; d < 200 && n < indexTreeFiles; d++ {
			for f := 0; f < 100 && n < indexTreeFiles; f++ {
				id := ""
				if f%10 == 0 {
					id = fmt.Sprintf(`"$id": "https://example.com/pkg%03d/f%03d.json", `, d, f)
				}
				write(fmt.Sprintf("pkg%03d/schemas/f%03d.json", d, f), fmt.Sprintf(`{%s"title": "file %d", "type": "object",
  "properties": {"a": {"type": "string"}, "b": {"type": "integer", "minimum": 0}}}`, id, n))
				n++
			}
		}
	}
	return dir
}

// benchValidate validates instance.json against schema in the tree as the CLI does (the
// operating system's files, the workspace derived from the schema named), and checks how
// many times the $id index was built.
func benchValidate(b *testing.B, schemaFile string, wantBuilds int) {
	dir := indexTree(b)
	d, _ := Lookup("validate")
	fsys := workspace.OS()
	schemaPath := filepath.ToSlash(filepath.Join(dir, schemaFile))
	for b.Loop() {
		in := &ValidateInput{Schema: PathDoc(schemaPath), Instances: []Doc{PathDoc(filepath.ToSlash(filepath.Join(dir, "instance.json")))}}
		_, dirs := WorkspaceOf(fsys, SchemaPaths(in))
		env := &Env{FS: fsys, Index: NewIndex(fsys, dirs, nil), Notes: NewNotes(nil)}
		r, err := d.Run(context.Background(), env, in)
		if err != nil {
			b.Fatal(err)
		}
		if r.ExitCode() != 0 {
			b.Fatalf("exit %d", r.ExitCode())
		}
		if n := env.Index.Builds(); n != wantBuilds {
			b.Fatalf("the $id index was built %d times, want %d", n, wantBuilds)
		}
		if wantBuilds == 1 && env.Index.Files() != indexTreeFiles {
			b.Fatalf("the index read %d files, want %d (note: %s)", env.Index.Files(), indexTreeFiles, env.Index.Note())
		}
	}
}

// BenchmarkValidateNeedsIndex: a $ref that only the $id index of a 20,000-file workspace
// resolves (the index is built once per run).
func BenchmarkValidateNeedsIndex(b *testing.B) { benchValidate(b, "s.json", 1) }

// BenchmarkValidateWithoutIndex: the same workspace, a schema whose references stay in the
// document: the index is never built.
func BenchmarkValidateWithoutIndex(b *testing.B) { benchValidate(b, "local.json", 0) }
