// Package align owns the comparison of two schemas location by location: the walk that
// aligns OLD and NEW (properties, items, branches, conditions, references) into items,
// and at each item the changes, each with its kind, its facts on both sides and what the
// rule engine (package prove) proved of each direction. It finds no instance: package
// search looks for the examples that break what align could not prove.
package align

import (
	"context"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/prove"
)

// Engine is the prover's engine with the walk's methods.
type Engine struct{ *prove.Engine }

// NewEngine returns an engine reading schemas into bs (nil: bodies of its own); see
// algebra.NewEngine.
func NewEngine(ctx context.Context, opts algebra.Options, bs *algebra.Bodies, size int) *Engine {
	return &Engine{prove.NewEngine(ctx, opts, bs, size)}
}
