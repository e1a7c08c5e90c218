package algebra

import (
	"errors"
	"time"
)

// Directions for Options.Direction.
const (
	Backward = "backward"
	Forward  = "forward"
	Full     = "full"
)

// Options configure Compare. The zero value (and nil) means: backward direction, pure
// validation semantics, a search of one second per direction with seed 1.
//
// Whether "format" is an assertion is decided when the schemas are compiled
// (schema.Options.AssertFormat); the comparison follows what each schema asserts.
type Options struct {
	// Direction is the direction asked about: "backward" (default), "forward" or "full".
	// It decides Result.Verdict, and with Check the exit code.
	Direction string
	// Check makes ExitCode 1 when the asked direction is not compatible.
	Check bool
	// RequiredWithDefault counts a newly required property that has a valid default in the
	// reading schema as compatible: a reader fills in the default (Confluent's view).
	RequiredWithDefault bool
	// Level "docs" also reports annotation changes (title, description, default, examples,
	// deprecated, readOnly, writeOnly, $comment); "validation" (default) does not.
	Level string
	// SearchBudget bounds the counterexample search per direction (default 1s); negative
	// turns the search off.
	SearchBudget time.Duration
	// SearchCandidates bounds the instances tried per direction (default 20000).
	SearchCandidates int
	// Seed makes the search reproducible (default 1).
	Seed uint64
	// ProofSteps bounds the rule engine's work (default 400000); beyond it, what is not
	// proved is unknown.
	ProofSteps int
	// DocumentBudget bounds the schema comparisons of two OpenAPI or AsyncAPI documents as
	// a whole (default 20 s; document.Compare only): the locations not compared by then are
	// unknown, and the result says how many. Each comparison stays as thorough as alone.
	DocumentBudget time.Duration

	MaxLocations int // the walk's locations (default 200,000)
	MaxParts     int // the parts an engine copies (default maxPartsCopied; overParts)
}

func (o *Options) Docs() bool { return o.Level == "docs" }

// Normalized returns a copy of the options with every default filled in (nil asks for the
// defaults), or an error naming a value that is not allowed: for a caller that runs
// comparisons of its own, as document.Compare does.
func (o *Options) Normalized() (Options, error) { return o.Normalize() }

func (o *Options) Normalize() (Options, error) {
	var n Options
	if o != nil {
		n = *o
	}
	switch n.Direction {
	case "":
		n.Direction = Backward
	case Backward, Forward, Full:
	default:
		return n, errors.New("direction must be backward, forward or full")
	}
	switch n.Level {
	case "":
		n.Level = "validation"
	case "validation", "docs":
	default:
		return n, errors.New("level must be validation or docs")
	}
	if n.SearchBudget == 0 {
		n.SearchBudget = time.Second
	}
	if n.SearchCandidates <= 0 {
		n.SearchCandidates = 20000
	}
	if n.Seed == 0 {
		n.Seed = 1
	}
	if n.ProofSteps <= 0 {
		n.ProofSteps = 400000
	}
	if n.DocumentBudget <= 0 {
		n.DocumentBudget = 20 * time.Second
	}
	if n.MaxLocations <= 0 {
		n.MaxLocations = 200000
	}
	if n.MaxParts <= 0 {
		n.MaxParts = maxPartsCopied
	}
	return n, nil
}
