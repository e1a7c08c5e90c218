package sample

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/schema"
)

// refChain is a schema whose root reaches a string through n $ref hops.
func refChain(n int) string {
	var sb strings.Builder
	sb.WriteString(`{"$ref": "#/$defs/d0", "$defs": {`)
	for i := range n {
		fmt.Fprintf(&sb, `"d%d": {"$ref": "#/$defs/d%d"}, `, i, i+1)
	}
	fmt.Fprintf(&sb, `"d%d": {"type": "string", "minLength": 2}}}`, n)
	return sb.String()
}

// TestChainCheckedOnce: the conjunction of a reference chain has one schema to check, the
// root, whose check covers every hop; checking each hop on its own made a chain of n hops
// cost n^2 evaluations per check (a 20,000-hop chain ran for minutes).
func TestChainCheckedOnce(t *testing.T) {
	const n = 300
	s := compileText(t, refChain(n), nil)
	g := newGen(context.Background(), s, (&Options{}).withDefaults())
	c := &conj{}
	g.add(c, s, nil)
	var checked []string
	for _, m := range c.all {
		if !c.member[m] {
			checked = append(checked, m.Location())
		}
	}
	if len(c.all) != n+2 || len(checked) != 1 {
		t.Errorf("%d schemas in the conjunction, %d checked (%v); want %d, 1", len(c.all), len(checked), checked, n+2)
	}
	// A sibling reached through a choice, or a dynamic reference, is checked on its own.
	s = compileText(t, `{"anyOf": [{"$ref": "#/$defs/a"}], "$defs": {"a": {"allOf": [{"minLength": 1}]}}}`, nil)
	g = newGen(context.Background(), s, (&Options{}).withDefaults())
	g.seed(0, 0)
	c = &conj{}
	g.add(c, s, nil)
	g.resolve(c, 0)
	checked = nil
	for _, m := range c.all {
		if !c.member[m] {
			checked = append(checked, m.Location())
		}
	}
	if len(checked) != 2 {
		t.Errorf("checked %v; want the root and the chosen branch", checked)
	}
}

// TestNoRecursionAlongChains: the walks of sample's own (add, staticTypes, estimate) use
// explicit stacks: on a long chain, with the goroutine stack cut to 256 KiB, they finish.
func TestNoRecursionAlongChains(t *testing.T) {
	const n = 20000
	text := strings.Replace(refChain(n), `"type": "string", "minLength": 2`, `"type": "object", "required": ["a"], "properties": {"a": {"$ref": "#/$defs/d0"}}`, 1)
	s := compileText(t, text, nil)
	g := newGen(context.Background(), s, (&Options{}).withDefaults())
	old := debug.SetMaxStack(256 << 10)
	defer debug.SetMaxStack(old)
	c := &conj{}
	g.add(c, s, nil)
	if len(c.all) != n+2 {
		t.Errorf("add: %d schemas, want %d", len(c.all), n+2)
	}
	if got := g.staticTypes(s, map[*schema.Schema]bool{}); got != schema.TypeObject {
		t.Errorf("staticTypes: %v, want object", typeList(got))
	}
	if got := g.estimate(s); got != 101 {
		t.Errorf("estimate: %d, want 101 (an object whose required member recurses)", got)
	}
}

// hostile is a schema no string satisfies, whose first pattern backtracks exponentially
// on the strings that the second asks for (30 word characters and a "!").
const hostile = `{"type": "string", "minLength": 30, "allOf": [{"pattern": "^(\\w+\\s?)*$"}, {"pattern": "!$"}]}`

// TestStoppedByTheBudget: a run whose checks take too long is stopped, and says so as a
// result: the instances made so far and a failure "stopped after N s: ...".
func TestStoppedByTheBudget(t *testing.T) {
	s := compileText(t, hostile, &schema.Options{RegexTimeout: 100 * time.Millisecond})
	tests := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want string
	}{
		{"pattern budget", func() (context.Context, context.CancelFunc) {
			return schema.WithRegexBudget(context.Background(), 300*time.Millisecond), func() {}
		}, "--regex-budget"},
		{"time limit", func() (context.Context, context.CancelFunc) {
			return schema.WithTimeout(context.Background(), 300*time.Millisecond)
		}, "--timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			res, err := Generate(ctx, s, &Options{Count: 3})
			if err != nil {
				t.Fatalf("Generate: %v, want a result", err)
			}
			f := res.Failure
			if f == nil || !f.Stopped || !strings.HasPrefix(f.Reason, "stopped after ") || !strings.Contains(f.Reason, tt.want) {
				t.Fatalf("failure %+v, want one stopped by the budget (%s)", f, tt.want)
			}
			if res.ExitCode() != 2 || len(res.Diagnostics()) != 1 || res.Diagnostics()[0].Code != "sample/stopped" {
				t.Errorf("exit %d, diagnostics %+v; want 2 and sample/stopped", res.ExitCode(), res.Diagnostics())
			}
			var sb strings.Builder
			if err := res.WriteText(&sb); err != nil || !strings.Contains(sb.String(), "instances generated; stopped after") {
				t.Errorf("text %q (%v), want the stop explained", sb.String(), err)
			}
		})
	}
}

// TestCancelledDuringGeneration: a cancellation reaches the checks of an attempt under way,
// and Generate returns the context's error, not a result.
func TestCancelledDuringGeneration(t *testing.T) {
	s := compileText(t, hostile, &schema.Options{RegexTimeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	done := make(chan error, 1)
	go func() {
		_, err := Generate(ctx, s, &Options{Count: 2, Invalid: true})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Generate: %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Generate did not stop within a minute of its cancellation")
	}
}
