package coverage

import (
	"context"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/schematest"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Coverage against plain validation on the same work: the SchemaStore schemas with the
// most instance data, every instance file read, parsed and evaluated. Compare
// BenchmarkSchemaStore/validate with BenchmarkSchemaStore/coverage (the bound is
// 3x).

var benchSchemas = []string{"cloudify", "aspire-8.0", "pyproject", "webextension", "liquibase", "catalog-info", "package", "dependabot-2.0"}

func BenchmarkSchemaStore(b *testing.B) {
	dir := corpora.Dir(b, "schemastore-dev")
	fsys, err := workspace.Root(dir)
	if err != nil {
		b.Fatal(err)
	}
	all := schemastoreSchemas(b, dir, fsys)
	type work struct {
		s     *schema.Schema
		files []string
	}
	var ws []work
	for _, name := range benchSchemas {
		for _, s := range all {
			if s.name != name {
				continue
			}
			c := schema.NewCompiler(&schema.Options{AssertFormat: true, Loader: &schema.Loader{FS: fsys, Resolve: schemastoreResolve}})
			sch, err := c.Compile(schema.FileURI(fsys.Abs(s.schema)))
			if err != nil {
				b.Fatal(err)
			}
			ws = append(ws, work{sch, s.files()})
		}
	}
	b.Run("validate", func(b *testing.B) {
		for b.Loop() {
			for _, w := range ws {
				var srcs []validate.Source
				for _, f := range w.files {
					srcs = append(srcs, validate.Source{Name: f, Path: f})
				}
				if _, err := validate.Run(context.Background(), w.s, srcs, fsys, &validate.Options{Workers: 1}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("coverage", func(b *testing.B) {
		for b.Loop() {
			for _, w := range ws {
				var srcs []Source
				for _, f := range w.files {
					srcs = append(srcs, Source{Name: f, Path: f})
				}
				res, err := Measure(context.Background(), w.s, srcs, &Options{Options: schematest.Options{FS: fsys, Resolve: schemastoreResolve, Workers: 1}})
				if err != nil || len(res.Problems) > 0 {
					b.Fatal(err, res.Problems)
				}
			}
		}
	})
}

func (s *storeSchema) files() []string {
	return append(append([]string{}, s.positive...), s.negative...)
}

// BenchmarkEvaluate isolates evaluation on parsed instances: Validate, Trace with a no-op
// callback (the evaluator's own cost of tracing), and Trace with the coverage tracer.
// catalog-info's root is an anyOf of ten entity kinds: Validate stops at the first
// alternative that matches, Trace evaluates all ten.
func BenchmarkEvaluate(b *testing.B) {
	dir := corpora.Dir(b, "schemastore-dev")
	fsys, err := workspace.Root(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"catalog-info", "aspire-8.0"} {
		var store storeSchema
		for _, s := range schemastoreSchemas(b, dir, fsys) {
			if s.name == name {
				store = s
			}
		}
		c := schema.NewCompiler(&schema.Options{Loader: &schema.Loader{FS: fsys, Resolve: schemastoreResolve}})
		s, err := c.Compile(schema.FileURI(fsys.Abs(store.schema)))
		if err != nil {
			b.Fatal(err)
		}
		var docs []*source.Document
		for _, f := range store.positive {
			data, err := workspace.ReadFile(fsys, f, 0)
			if err != nil {
				b.Fatal(err)
			}
			format, _ := source.FormatOf(f)
			ds, err := source.Parse(f, data, format, nil)
			if err != nil {
				b.Fatal(err)
			}
			docs = append(docs, ds...)
		}
		m := newModel(s, schemastoreResolve)
		v := m.add(s)
		m.finish()
		tr := newTracer(context.Background(), nil, m)
		tr.v = v
		b.Run(name+"/validate", func(b *testing.B) {
			for b.Loop() {
				for _, d := range docs {
					s.Validate(d.Root)
				}
			}
		})
		b.Run(name+"/trace-noop", func(b *testing.B) {
			for b.Loop() {
				for _, d := range docs {
					s.Trace(d.Root, func(schema.Event) {})
				}
			}
		})
		b.Run(name+"/trace-coverage", func(b *testing.B) {
			for b.Loop() {
				for _, d := range docs {
					errs, _ := tr.trace(s, d.Root)
					tr.finishTest(len(errs) == 0, true, errs)
				}
			}
		})
	}
}
