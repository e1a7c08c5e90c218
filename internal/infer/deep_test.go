package infer

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/source"
)

// nesting is the deepest nesting of arrays and objects in v (a scalar is 0).
func nesting(v source.Value) int {
	type item struct {
		v source.Value
		d int
	}
	deepest := 0
	stack := []item{{v, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch it.v.Kind() {
		case source.Array:
			deepest = max(deepest, it.d+1)
			for _, c := range it.v.Items() {
				stack = append(stack, item{c, it.d + 1})
			}
		case source.Object:
			deepest = max(deepest, it.d+1)
			for i := 0; i < it.v.Len(); i++ {
				_, c := it.v.Member(i)
				stack = append(stack, item{c, it.d + 1})
			}
		}
	}
	return deepest
}

// TestInferDeep infers schemas from documents nested thousands of levels deep: the schema
// nests no deeper than the input's limit allows (less room for an answer's envelope), says
// where it was cut, still accepts its instance, and takes memory linear in the input (an
// 18 KB document once took 3.4 GB, shapes with two properties at every level took minutes).
func TestInferDeep(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20)) // a recursion missed fails fast
	const levels = 5100                                  // objects nest 2 levels of schema each: 10,200, over the limit
	tests := []struct {
		name   string
		doc    string
		limits *source.Limits
		cut    bool
	}{
		{"object", strings.Repeat(`{"a":`, levels) + "1" + strings.Repeat("}", levels), nil, true},
		{"objects of two properties", strings.Repeat(`{"b":1,"a":`, levels) + "1" + strings.Repeat("}", levels), nil, true},
		{"array", strings.Repeat("[", levels) + strings.Repeat("]", levels), nil, false},
		{"array under a lower limit", strings.Repeat("[", 590) + strings.Repeat("]", 590), &source.Limits{MaxDepth: 595}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lim := tc.limits
			if lim == nil {
				lim = &source.Limits{}
			}
			doc, err := source.ParseJSON("deep.json", []byte(tc.doc), lim)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			sum, err := NewSummary(&Options{Limits: tc.limits})
			if err != nil {
				t.Fatal(err)
			}
			sum.Add(doc.Root)
			res := sum.Result()
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 400*uint64(len(tc.doc))+(8<<20) {
				t.Errorf("inferring from %d bytes allocated %d bytes", len(tc.doc), alloc)
			}
			if d, limit := nesting(res.Value()), maxDepth(tc.limits); d > limit {
				t.Errorf("the schema nests %d levels, more than %d", d, limit)
			}
			if got := len(res.NoteList) == 1 && strings.Contains(res.NoteList[0], "is cut at /"); got != tc.cut {
				t.Errorf("notes %.200q: cut %v, want %v", res.NoteList, got, tc.cut)
			}
			if tc.cut {
				if ds := res.Diagnostics(); len(ds) != 1 || ds[0].Code != "infer/schema-cut" {
					t.Errorf("diagnostics %v, want one infer/schema-cut", ds)
				}
			}
			s, err := compileResult(res, false)
			if err != nil {
				t.Fatalf("the inferred schema does not compile: %v", err)
			}
			if errs, err := s.Validate(doc.Root); err != nil || len(errs) > 0 {
				t.Errorf("the inferred schema rejects its instance: %v %v", err, errs)
			}
		})
	}
}

// TestExtractDefsDeep checks that repeated shapes are still found below deep nesting.
func TestExtractDefsDeep(t *testing.T) {
	inner := `{"x":1,"y":"a"}`
	doc := strings.Repeat(`{"p":`+inner+`,"q":`, 2000) + inner + strings.Repeat("}", 2000)
	got := inferred(t, nil, doc)
	if !strings.Contains(got, `"$defs":{"p":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"string"}}`) {
		t.Errorf("the repeated shape is not a definition: %.300s", got)
	}
}
