package tools

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/store"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// benchRepo is a generated repository of 10,000 files, 1,000 of which have a schema: 400 by
// SchemaStore's catalog (package.json, tsconfig.json, .github/dependabot.yml), 300 by
// jstk.json's map, 300 by their own $schema; the other 9,000 are JSON, YAML, Markdown and Go
// files that no schema applies to.
func benchRepo() map[string]string {
	files := map[string]string{
		"jstk.json":                 `{"schemas": {"schemas/order.schema.json": "services/*/orders/*.json"}}`,
		"schemas/order.schema.json": `{"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}, "lines": {"type": "array", "items": {"type": "object"}}}}`,
		".gitignore":                "dist/\n",
	}
	n := len(files) - 1 // the schema counts among the files with one (by its meta-schema: no)
	for i := 0; len(files) < 10_000; i++ {
		d := fmt.Sprintf("services/s%04d", i)
		switch {
		case i < 150:
			files[d+"/package.json"] = fmt.Sprintf(`{"name": "s%d", "version": "1.0.%d", "private": true, "scripts": {"test": "go test"}}`, i, i)
			files[d+"/tsconfig.json"] = "{\n  // strict\n  \"compilerOptions\": {\"strict\": true, \"target\": \"es2022\"}\n}\n"
		case i < 250:
			files[d+"/.github/dependabot.yml"] = "version: 2\nupdates:\n  - package-ecosystem: gomod\n    directory: /\n    schedule:\n      interval: weekly\n"
		case i < 550:
			files[d+"/orders/o.json"] = fmt.Sprintf(`{"id": %d, "lines": [{"sku": "a"}, {"sku": "b"}]}`, i)
		case i < 850:
			files[d+"/config.json"] = fmt.Sprintf(`{"$schema": "../../schemas/order.schema.json", "id": %d}`, i)
		}
		for j := 0; j < 10 && len(files) < 10_000; j++ {
			switch j % 4 {
			case 0:
				files[fmt.Sprintf("%s/data%d.json", d, j)] = fmt.Sprintf(`{"k": %d, "v": [1, 2, 3], "name": "item %d"}`, j, i)
			case 1:
				files[fmt.Sprintf("%s/conf%d.yaml", d, j)] = fmt.Sprintf("key: %d\nlist:\n  - a\n  - b\n", j)
			case 2:
				files[fmt.Sprintf("%s/README%d.md", d, j)] = "# service\n\nSome text.\n"
			default:
				files[fmt.Sprintf("%s/main%d.go", d, j)] = "package main\n\nfunc main() {}\n"
			}
		}
	}
	_ = n
	return files
}

// TestGenerateBenchRepo writes the benchmark repository to $JSTK_BENCH_REPO, for timing the
// binary on it (BENCHMARKS.md).
func TestGenerateBenchRepo(t *testing.T) {
	dir := os.Getenv("JSTK_BENCH_REPO")
	if dir == "" {
		t.Skip("set JSTK_BENCH_REPO=DIR to write the benchmark repository there")
	}
	writeFiles(t, dir, benchRepo())
}

// BenchmarkValidateWithoutSchema: jstk validate . on the 10,000-file repository, with the
// corpora's SchemaStore snapshot as the catalog.
func BenchmarkValidateWithoutSchema(b *testing.B) {
	dir := b.TempDir()
	for name, text := range benchRepo() {
		p := dir + "/" + name
		if err := os.MkdirAll(p[:len(p)-len(lastSeg(name))], 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	fsys, err := workspace.Root(dir)
	if err != nil {
		b.Fatal(err)
	}
	s := snapshot(b)
	cfg, err := LoadConfig(fsys)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		env := &Env{FS: fsys, Config: cfg, Store: s, Remotes: []schema.Remote{s}}
		res, err := runValidate(context.Background(), env, &ValidateInput{})
		if err != nil || res.Summary.Total != 1000 || res.Summary.Valid != 1000 {
			b.Fatalf("%v %+v", err, res.Summary)
		}
	}
}

func lastSeg(name string) string {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '/' {
			return name[i+1:]
		}
	}
	return name
}

var _ = store.File
