package tools

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// AddForTest adds a tool to the table for the length of a test, as the init of a tool's
// file does (register(define(...))), and returns what takes it out again. Tests of the
// contract that a tool is its file plus its engine use it (package tools_test).
func AddForTest[In any, Out Report](d Descriptor, run func(context.Context, *Env, *In) (Out, error)) (remove func()) {
	desc := define(d, run)
	register(desc)
	return func() { table = slices.DeleteFunc(table, func(x *Descriptor) bool { return x == desc }) }
}

// CheckTool runs on one descriptor the checks that TestEveryToolThroughTheProvider runs on
// every tool of the table: its exit codes, and each of its samples on the sample workspace
// over MCP and through the CLI's formats.
func CheckTool(t *testing.T, d *Descriptor) {
	t.Helper()
	if len(d.Samples) == 0 {
		t.Errorf("tool %s has no Samples in its descriptor", d.Name)
	}
	checkExitCodes(t, d)
	env := &Env{FS: workspace.Memory(sampleFiles(t)), Cache: NewSchemaCache(4)}
	p := NewProvider(env, All())
	for i, args := range d.Samples {
		t.Run(fmt.Sprintf("%s/%d", d.Name, i), func(t *testing.T) { checkSample(t, p, env, d, args) })
	}
}
