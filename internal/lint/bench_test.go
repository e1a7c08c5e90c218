package lint

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// BenchmarkLintSchemaStore lints the 801 schemas of schemastore-dev with the default
// rules, on all CPUs, as jstk lint does.
func BenchmarkLintSchemaStore(b *testing.B) {
	dir := corpora.Dir(b, "schemastore-dev")
	fsys, err := workspace.Root(dir)
	if err != nil {
		b.Fatal(err)
	}
	srcs := storeSources(b, dir)
	for b.Loop() {
		res, err := Run(context.Background(), srcs, fsys, &Options{Loader: &schema.Loader{FS: fsys, Resolve: storeResolve}})
		if err != nil || res.Summary.Files != len(srcs) {
			b.Fatal(err)
		}
	}
}

// BenchmarkLintOne lints one mid-sized schema (rule work without the corpus's I/O).
func BenchmarkLintOne(b *testing.B) {
	fsys := workspace.Memory(map[string]string{"s.json": benchSchema})
	srcs := []Source{{Name: "s.json", Path: "s.json"}}
	for b.Loop() {
		if _, err := Run(context.Background(), srcs, fsys, &Options{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

const benchSchema = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "title": "Service", "description": "A service definition.",
  "type": "object",
  "required": ["name", "ports"],
  "properties": {
    "name": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$", "maxLength": 63},
    "image": {"type": "string", "default": "nginx:latest"},
    "ports": {"type": "array", "items": {"$ref": "#/definitions/port"}, "minItems": 1, "uniqueItems": true},
    "env": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
    "replicas": {"type": "integer", "minimum": 0, "maximum": 100, "default": 1},
    "mode": {"enum": ["replicated", "global"], "default": "replicated"},
    "labels": {"type": "object", "propertyNames": {"pattern": "^[a-z.]+$"}, "additionalProperties": {"type": "string"}},
    "healthcheck": {"$ref": "#/definitions/healthcheck"}
  },
  "definitions": {
    "port": {"type": "object", "required": ["target"], "properties": {
      "target": {"type": "integer", "minimum": 1, "maximum": 65535},
      "published": {"type": "integer", "minimum": 1, "maximum": 65535},
      "protocol": {"enum": ["tcp", "udp"], "default": "tcp"}}, "additionalProperties": false},
    "healthcheck": {"type": "object", "properties": {
      "test": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
      "interval": {"type": "string", "pattern": "^[0-9]+(ms|s|m|h)$", "examples": ["30s"]},
      "retries": {"type": "integer", "minimum": 0}}}
  }
}`

// BenchmarkLintNotChain lints the hostile input of issue 17 that the before-stop hook
// runs: an 8,000-hop $ref chain, each hop wrapped in 50 nots (3.4 MB, 408,001 schemas),
// with the default rules, as `jstk lint chain.json` does.
func BenchmarkLintNotChain(b *testing.B) {
	fsys := workspace.Memory(map[string]string{"chain.json": notChain(8000, 50)})
	srcs := []Source{{Name: "chain.json", Path: "chain.json"}}
	for b.Loop() {
		res, err := Run(context.Background(), srcs, fsys, &Options{Loader: &schema.Loader{FS: fsys}})
		if err != nil || res.Summary.Files != 1 || len(res.Problems) > 0 {
			b.Fatal(err, res.Problems)
		}
	}
}

// notChain is a schema whose $defs chain hops $ref hops, each wrapped in nots nots.
func notChain(hops, nots int) string {
	var sb strings.Builder
	sb.WriteString(`{"$ref":"#/$defs/a0","$defs":{`)
	open, closing := strings.Repeat(`{"not":`, nots), strings.Repeat("}", nots)
	for i := range hops {
		fmt.Fprintf(&sb, `"a%d":%s{"$ref":"#/$defs/a%d"}%s,`, i, open, i+1, closing)
	}
	fmt.Fprintf(&sb, `"a%d":{}}}`, hops)
	return sb.String()
}
