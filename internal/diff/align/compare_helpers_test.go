package align_test

import (
	"github.com/jstk-dev/jstk/internal/diff"
	"github.com/jstk-dev/jstk/internal/diff/difftest"
)

// The room's tests compare schemas as diff.Compare does (the room is one stage of it) and
// check what every comparison must hold, with the helpers of difftest.
var (
	quick          = difftest.Quick
	compileText    = difftest.CompileText
	textOf         = difftest.TextOf
	verifyExamples = difftest.VerifyExamples
)

type verdicts struct{ Backward, Forward diff.Verdict }

const (
	d4 = `"$schema": "http://json-schema.org/draft-04/schema#", `
	d7 = `"$schema": "http://json-schema.org/draft-07/schema#", `
)
