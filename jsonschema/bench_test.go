package jsonschema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/jstk-dev/jstk/jsonschema"
)

// The library against santhosh-tekuri/jsonschema v6, in one process, on the same schema and
// the same instances: warm validation (the schema compiled once) of values decoded once
// (encoding/json with UseNumber, which is what santhosh's UnmarshalJSON gives too), and of
// bytes (parse and validate). See BENCHMARKS.md.

const benchSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["id", "customer", "items", "status"],
  "additionalProperties": false,
  "properties": {
    "id": {"type": "string", "pattern": "^ord-[0-9]{6}$"},
    "status": {"enum": ["new", "paid", "shipped", "cancelled"]},
    "customer": {"$ref": "#/$defs/customer"},
    "items": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/item"}},
    "note": {"type": "string", "maxLength": 200}
  },
  "$defs": {
    "customer": {
      "type": "object", "required": ["name", "email"],
      "properties": {
        "name": {"type": "string", "minLength": 1},
        "email": {"type": "string", "format": "email"},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
      }
    },
    "item": {
      "type": "object", "required": ["sku", "qty", "price"],
      "properties": {
        "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
        "qty": {"type": "integer", "minimum": 1},
        "price": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.01}
      },
      "oneOf": [{"properties": {"qty": {"maximum": 10}}}, {"properties": {"qty": {"minimum": 11}}}]
    }
  }
}`

// benchInstances are n orders, valid, of a few items each.
func benchInstances(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		var items bytes.Buffer
		for j := 0; j < 1+i%5; j++ {
			if j > 0 {
				items.WriteByte(',')
			}
			fmt.Fprintf(&items, `{"sku": "ABC-%04d", "qty": %d, "price": %d.%02d}`, (i+j)%10000, 1+(i+j)%20, 1+j, (i*7)%100)
		}
		out[i] = fmt.Appendf(nil, `{"id": "ord-%06d", "status": "paid", "customer": {"name": "Ada %d", "email": "ada%d@example.com", "tags": ["a", "b%d"]}, "items": [%s], "note": "leave at the door"}`,
			i, i, i, i, items.String())
	}
	return out
}

func decode(b testing.TB, data []byte) any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		b.Fatal(err)
	}
	return v
}

func jstkSchema(b testing.TB) *jsonschema.Schema {
	s, err := jsonschema.Compile(context.Background(), "https://bench.test/order.json", []byte(benchSchema), nil)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func santhoshSchema(b testing.TB) *santhosh.Schema {
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader([]byte(benchSchema)))
	if err != nil {
		b.Fatal(err)
	}
	c := santhosh.NewCompiler()
	if err := c.AddResource("https://bench.test/order.json", doc); err != nil {
		b.Fatal(err)
	}
	s, err := c.Compile("https://bench.test/order.json")
	if err != nil {
		b.Fatal(err)
	}
	return s
}

const benchN = 1000

func BenchmarkValues(b *testing.B) {
	raw := benchInstances(benchN)
	values := make([]any, len(raw))
	for i, r := range raw {
		values[i] = decode(b, r)
	}
	ctx := context.Background()
	b.Run("jstk/Validate", func(b *testing.B) {
		s := jstkSchema(b)
		for b.Loop() {
			for _, v := range values {
				if errs, err := s.Validate(ctx, v); err != nil || errs != nil {
					b.Fatal(errs, err)
				}
			}
		}
		b.ReportMetric(float64(benchN*b.N)/b.Elapsed().Seconds(), "instances/s")
	})
	b.Run("jstk/Valid", func(b *testing.B) {
		s := jstkSchema(b)
		for b.Loop() {
			for _, v := range values {
				if ok, err := s.Valid(ctx, v); err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
		}
		b.ReportMetric(float64(benchN*b.N)/b.Elapsed().Seconds(), "instances/s")
	})
	// the cost of annotations and of the output formats, asked for (the paths above never
	// take them)
	b.Run("jstk/Annotate", func(b *testing.B) {
		s := jstkSchema(b)
		for b.Loop() {
			for _, v := range values {
				if anns, errs, err := s.Annotate(ctx, v); err != nil || errs != nil || len(anns) == 0 {
					b.Fatal(errs, err)
				}
			}
		}
		b.ReportMetric(float64(benchN*b.N)/b.Elapsed().Seconds(), "instances/s")
	})
	b.Run("jstk/Output-basic", func(b *testing.B) {
		s := jstkSchema(b)
		for b.Loop() {
			for _, v := range values {
				if out, err := s.Output(ctx, v, jsonschema.Basic); err != nil || !out.Valid {
					b.Fatal(out, err)
				}
			}
		}
		b.ReportMetric(float64(benchN*b.N)/b.Elapsed().Seconds(), "instances/s")
	})
	b.Run("santhosh/Validate", func(b *testing.B) {
		s := santhoshSchema(b)
		for b.Loop() {
			for _, v := range values {
				if err := s.Validate(v); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(benchN*b.N)/b.Elapsed().Seconds(), "instances/s")
	})
}

func BenchmarkBytes(b *testing.B) {
	raw := benchInstances(benchN)
	ctx := context.Background()
	b.Run("jstk/ValidateBytes", func(b *testing.B) {
		s := jstkSchema(b)
		for b.Loop() {
			for _, r := range raw {
				if errs, err := s.ValidateBytes(ctx, r); err != nil || errs != nil {
					b.Fatal(errs, err)
				}
			}
		}
		b.ReportMetric(float64(benchN*b.N)/b.Elapsed().Seconds(), "instances/s")
	})
	b.Run("santhosh/UnmarshalJSON+Validate", func(b *testing.B) {
		s := santhoshSchema(b)
		for b.Loop() {
			for _, r := range raw {
				v, err := santhosh.UnmarshalJSON(bytes.NewReader(r))
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Validate(v); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(benchN*b.N)/b.Elapsed().Seconds(), "instances/s")
	})
}
