package sample

import (
	"context"
	"testing"
)

// The order schema of ../shared/tools/bench-gen.py, inline.
const orderSchema = `{
  "type": "object",
  "required": ["id", "createdAt", "status", "customer", "items", "total", "currency"],
  "additionalProperties": false,
  "properties": {
    "id": {"type": "string", "format": "uuid"},
    "createdAt": {"type": "string", "format": "date-time"},
    "status": {"enum": ["pending", "paid", "shipped", "delivered", "cancelled"]},
    "orderNumber": {"type": "string", "pattern": "^ORD-[0-9]{4}-[A-Z]{3}[0-9]{5}$"},
    "customer": {"type": "object", "required": ["id", "email"], "properties": {"id": {"type": "integer", "minimum": 1}, "email": {"type": "string", "format": "email"}}},
    "items": {"type": "array", "minItems": 1, "maxItems": 50, "items": {"type": "object", "required": ["sku", "qty", "price"],
      "properties": {"sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{6}$"}, "qty": {"type": "integer", "minimum": 1}, "price": {"type": "number", "minimum": 0, "multipleOf": 0.01}}}},
    "total": {"type": "number", "minimum": 0, "multipleOf": 0.01},
    "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
    "tags": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 20}, "uniqueItems": true, "maxItems": 10},
    "payment": {"type": "object", "required": ["method"], "properties": {"method": {"enum": ["card", "paypal"]}, "last4": {"type": "string", "pattern": "^[0-9]{4}$"}},
      "if": {"properties": {"method": {"const": "card"}}}, "then": {"required": ["last4"]}}
  }
}`

func BenchmarkGenerateOrder(b *testing.B) {
	s := compileText(b, orderSchema, nil)
	for b.Loop() {
		res, err := Generate(context.Background(), s, &Options{Count: 100})
		if err != nil || res.Failure != nil {
			b.Fatal(err, res.Failure)
		}
	}
}

// BenchmarkSchemaStore generates one instance for every schema of schemastore-dev (the
// schemas are compiled once, outside the loop).
func BenchmarkSchemaStore(b *testing.B) {
	schemas, _ := schemaStore(b)
	names := sortedNames(schemas)
	for b.Loop() {
		for _, name := range names {
			if _, err := Generate(context.Background(), schemas[name], &Options{Seed: 1}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkJSONSchemaTestSuite generates one instance for every schema of the
// JSON-Schema-Test-Suite that has a valid test (compiled once, outside the loop).
func BenchmarkJSONSchemaTestSuite(b *testing.B) {
	cases := suiteCases(b)
	for b.Loop() {
		for _, sc := range cases {
			if _, err := Generate(context.Background(), sc.schema, &Options{Seed: 1}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
