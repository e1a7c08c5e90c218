package search_test

import (
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

// keywordPairs reads testdata/pairs-by-keyword.json (difftest.KeywordPairs).
var keywordPairs = difftest.KeywordPairs
