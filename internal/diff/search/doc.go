// Package search owns the instances: the seeded generation of candidate instances from
// both schemas, the bounded search for an instance valid under one side and invalid under
// the other (checked with jstk's own validator), its attribution to the changes of
// package align, the shrinking and polishing of the examples it keeps, and the
// whole-schema proofs run beside the walk on an engine of their own.
package search

import (
	"context"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/align"
)

// Engine is the walk's engine with the search's methods.
type Engine struct{ *align.Engine }

// NewEngine returns an engine reading schemas into bs (nil: bodies of its own); see
// algebra.NewEngine.
func NewEngine(ctx context.Context, opts algebra.Options, bs *algebra.Bodies, size int) *Engine {
	return &Engine{align.NewEngine(ctx, opts, bs, size)}
}
