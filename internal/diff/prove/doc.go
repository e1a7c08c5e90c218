// Package prove owns the rule engine's proofs over the conjunctions of package algebra:
// inclusion (Sub), disjointness, emptiness of a conjunction within classes of instances,
// the implications between facts of both sides, and the coverage of number and length
// ranges by unions. Every answer is sound: a claim is a proof, and a question it cannot
// settle within the step budget is unproved, never assumed.
package prove

import (
	"context"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
)

// Engine is algebra's engine with the prover's methods.
type Engine struct{ *algebra.Engine }

// NewEngine returns an engine reading schemas into bs (nil: bodies of its own); see
// algebra.NewEngine.
func NewEngine(ctx context.Context, opts algebra.Options, bs *algebra.Bodies, size int) *Engine {
	return &Engine{algebra.NewEngine(ctx, opts, bs, size)}
}
