package infer

import (
	"fmt"
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

// TestInferDeepVariedKeys infers from documents thousands of levels deep whose keys differ
// between documents, with and without --any-of: the emitter merges the values of a map (and
// the objects of an anyOf) again at every level it writes, and merging by copying made that
// quadratic in the depth (40 such documents, 1.2 MB, took 56 s and 7 GB without --any-of
// and 3.5 minutes with it). Memory stays linear in the input, and each document is still
// accepted.
func TestInferDeepVariedKeys(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine's work (a Summary): run without the race detector")
	}
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
	for _, tc := range []struct {
		name         string
		docs, levels int
	}{
		{"a map at every level", 24, 3000},
		// Over the caps of 64 key sets and 1,000 keys a location tracks: the summary
		// collapses them again at every level (merging by copying made that quadratic).
		{"over the caps at every level", 1100, 150},
	} {
		t.Run(tc.name, func(t *testing.T) { inferVariedKeys(t, tc.docs, tc.levels) })
	}
}

func inferVariedKeys(t *testing.T, docs, levels int) {
	var texts []string
	size := 0
	for i := range docs {
		key := fmt.Sprintf(`{"k%d":`, i)
		texts = append(texts, strings.Repeat(key, levels)+"1"+strings.Repeat("}", levels))
		size += len(texts[i])
	}
	for _, anyOf := range []bool{false, true} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		sum, err := NewSummary(&Options{AnyOf: anyOf})
		if err != nil {
			t.Fatal(err)
		}
		var roots []source.Value
		for i, text := range texts {
			doc, err := source.ParseJSON(fmt.Sprint(i, ".json"), []byte(text), &source.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			sum.Add(doc.Root)
			roots = append(roots, doc.Root)
		}
		res := sum.Result()
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 400*uint64(size)+(8<<20) {
			t.Errorf("any-of %v: inferring from %d bytes allocated %d MB", anyOf, size, alloc>>20)
		}
		s, err := compileResult(res, false)
		if err != nil {
			t.Fatalf("any-of %v: the inferred schema does not compile: %v", anyOf, err)
		}
		for i, root := range roots {
			if errs, err := s.Validate(root); err != nil || len(errs) > 0 {
				t.Errorf("any-of %v: the inferred schema rejects document %d: %v %v", anyOf, i, err, errs)
			}
		}
	}
}

// TestMergeStops: a merge stops where it is once its run is cancelled (the merge of two
// worker summaries of a large input takes seconds), and goes on to the end otherwise.
func TestMergeStops(t *testing.T) {
	summary := func() *node {
		sum, err := NewSummary(&Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			doc, err := source.ParseJSON("x.json", []byte(fmt.Sprintf(`{"a":{"b":[%d]}}`, i)), &source.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			sum.Add(doc.Root)
		}
		return sum.root
	}
	done := make(chan struct{})
	c := caps{done: done}
	a, b := summary(), summary()
	mergeNode(a, b, c)
	if a.count != 6 || a.props["a"].n.props["b"].n.items.count != 6 {
		t.Errorf("merged: %d values at the root, want 6", a.count)
	}
	close(done)
	a, b = summary(), summary()
	mergeNode(a, b, c)
	if a.count != 3 {
		t.Errorf("a cancelled merge went on: %d values at the root, want 3", a.count)
	}
}
