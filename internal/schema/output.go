package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/jstk-dev/jstk/internal/source"
)

// This file is the specification's output formats (2020-12 core, section 12): flag,
// basic, detailed and verbose, made from one evaluation that collects errors and
// annotations (Annotate).

// OutputFormat names one of the specification's output formats.
type OutputFormat string

// The output formats of 2020-12 core, section 12.4.
const (
	// OutputFlag is the verdict alone: {"valid": true}.
	OutputFlag OutputFormat = "flag"
	// OutputBasic is a flat list of the errors (invalid) or of the annotations (valid).
	OutputBasic OutputFormat = "basic"
	// OutputDetailed is a hierarchy following the schema's, a subschema's unit that holds a
	// single unit replaced by that unit, the valid subschemas without annotations left out.
	OutputDetailed OutputFormat = "detailed"
	// OutputVerbose is the whole hierarchy: every subschema evaluated has its unit.
	OutputVerbose OutputFormat = "verbose"
)

// OutputFormats lists the formats, in the specification's order.
var OutputFormats = []OutputFormat{OutputFlag, OutputBasic, OutputDetailed, OutputVerbose}

// ParseOutputFormat returns the format named name, or an error that lists them.
func ParseOutputFormat(name string) (OutputFormat, error) {
	for _, f := range OutputFormats {
		if string(f) == name {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown output format %q: use flag, basic, detailed or verbose", name)
}

// OutputUnit is one unit of the specification's output: an evaluation result at one
// keyword location and instance location, with the units below it.
type OutputUnit struct {
	// Valid is the verdict of this unit: the keyword or subschema passed.
	Valid bool `json:"valid"`
	// KeywordLocation is the path of keywords evaluated to reach this unit, through
	// references ("" for the root).
	KeywordLocation string `json:"keywordLocation"`
	// AbsoluteKeywordLocation is the absolute URI of the keyword or subschema.
	AbsoluteKeywordLocation string `json:"absoluteKeywordLocation,omitempty"`
	// InstanceLocation is the JSON Pointer of the value evaluated.
	InstanceLocation string `json:"instanceLocation"`
	// Error says why a failing keyword failed.
	Error string `json:"error,omitempty"`
	// Annotation is a keyword's annotation, as JSON (basic: one unit per annotation).
	Annotation json.RawMessage `json:"annotation,omitempty"`
	// Errors are the failing units below this one.
	Errors []OutputUnit `json:"errors,omitempty"`
	// Annotations are the passing units below this one, with annotations.
	Annotations []OutputUnit `json:"annotations,omitempty"`

	flag bool // the flag format: only Valid is written
}

// MarshalJSON writes the unit as the specification shapes it: the flag format has only
// "valid".
func (u OutputUnit) MarshalJSON() ([]byte, error) {
	if u.flag {
		return json.Marshal(struct {
			Valid bool `json:"valid"`
		}{u.Valid})
	}
	type plain OutputUnit
	return json.Marshal(plain(u))
}

// Output evaluates v and returns the result in format f. The error is non-nil only when
// the evaluation could not be completed (as ValidateContext's).
func (s *Schema) Output(ctx context.Context, v source.Value, f OutputFormat) (*OutputUnit, error) {
	u, _, err := s.OutputLimit(ctx, v, f, 0)
	return u, err
}

// OutputLimit is Output that stops once max errors (causes included) have been found, as
// ValidateLimit does, reporting that it did; max <= 0 means no limit.
func (s *Schema) OutputLimit(ctx context.Context, v source.Value, f OutputFormat, max int) (u *OutputUnit, truncated bool, err error) {
	if _, err := ParseOutputFormat(string(f)); err != nil {
		return nil, false, err
	}
	if f == OutputFlag {
		ok, err := s.ValidContext(ctx, v)
		if err != nil {
			return nil, false, err
		}
		return &OutputUnit{Valid: ok, flag: true}, false, nil
	}
	e := getEvaluator(ctx, true)
	defer putEvaluator(e)
	e.annot = true
	e.verbose = f == OutputVerbose
	e.maxErrors = max
	e.eval(s, v, nil)
	if e.fatal != nil {
		return nil, false, e.fatal
	}
	return buildOutput(f, s, e.errs, e.annots, e.nodes), e.truncated, nil
}

// Size is about the number of bytes of the unit's JSON (a lower bound, computed without
// encoding it), for callers that keep answers within a budget.
func (u *OutputUnit) Size() int {
	n := 80 + len(u.KeywordLocation) + len(u.AbsoluteKeywordLocation) + len(u.InstanceLocation) + len(u.Error) + len(u.Annotation)
	for i := range u.Errors {
		n += u.Errors[i].Size()
	}
	for i := range u.Annotations {
		n += u.Annotations[i].Size()
	}
	return n
}

// evalNode is one schema evaluated, recorded for the verbose format.
type evalNode struct {
	kl, il, abs string
	valid       bool
}

// recordNode records the evaluation of s at the current locations (verbose format).
func (e *evaluator) recordNode(s *Schema, valid bool) {
	e.nodes = append(e.nodes, evalNode{kl: joinPath(e.kpath), il: joinPath(e.ipath), abs: s.Location(), valid: valid})
}

// outNode is a subschema's unit while the hierarchy is built.
type outNode struct {
	unit   OutputUnit
	kids   []*outNode
	leaves []OutputUnit // the keywords' own units
	bad    bool         // an error below
	failed bool         // evaluated and failed (verbose): in an alternative, an "if", a "not"
}

// hasTokenPrefix reports whether pointer p starts with pointer pre, token-wise.
func hasTokenPrefix(p, pre string) bool {
	return p == pre || strings.HasPrefix(p, pre+"/")
}

func buildOutput(f OutputFormat, root *Schema, errs []Error, anns []AnnotationUnit, nodes []evalNode) *OutputUnit {
	var flat []Error
	var flatten func([]Error)
	flatten = func(es []Error) {
		for _, e := range es {
			flat = append(flat, e)
			flatten(e.Causes)
		}
	}
	flatten(errs)
	top := OutputUnit{Valid: len(flat) == 0, KeywordLocation: "", AbsoluteKeywordLocation: root.Location(), InstanceLocation: ""}
	if f == OutputBasic {
		if len(flat) > 0 {
			for _, e := range flat {
				top.Errors = append(top.Errors, errorUnit(e))
			}
		} else {
			for _, a := range anns {
				top.Annotations = append(top.Annotations, annotationUnit(a))
			}
		}
		return &top
	}
	type key struct{ kl, il string }
	byKey := map[key]*outNode{}
	byKL := map[string][]*outNode{}
	node := func(kl, il, abs string) *outNode {
		k := key{kl, il}
		if n, ok := byKey[k]; ok {
			return n
		}
		n := &outNode{unit: OutputUnit{Valid: true, KeywordLocation: kl, AbsoluteKeywordLocation: abs, InstanceLocation: il}}
		byKey[k] = n
		byKL[kl] = append(byKL[kl], n)
		return n
	}
	rootNode := node("", "", root.Location())
	for _, n := range nodes {
		if !node(n.kl, n.il, n.abs).failed {
			byKey[key{n.kl, n.il}].failed = !n.valid
		}
	}
	for _, e := range flat {
		kl := e.KeywordLocation
		if e.kwPath != "" {
			kl = strings.TrimSuffix(kl, "/"+e.kwPath)
		}
		abs := ""
		if e.schema != nil {
			abs = e.schema.Location()
		}
		n := node(kl, e.InstanceLocation, abs)
		n.leaves = append(n.leaves, errorUnit(e))
	}
	if len(flat) == 0 {
		for _, a := range anns {
			kl := strings.TrimSuffix(a.KeywordLocation, "/"+source.EscapeToken(a.Keyword))
			n := node(kl, a.InstanceLocation, a.schema.Location())
			n.leaves = append(n.leaves, annotationUnit(a))
		}
	}
	// each node's parent: the node of the longest keyword location above it whose
	// instance location is at or above its own
	all := make([]*outNode, 0, len(byKey))
	for _, n := range byKey {
		all = append(all, n)
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i].unit, all[j].unit
		if a.KeywordLocation != b.KeywordLocation {
			return a.KeywordLocation < b.KeywordLocation
		}
		return a.InstanceLocation < b.InstanceLocation
	})
	for _, n := range all {
		if n == rootNode {
			continue
		}
		parent := rootNode
		kl := n.unit.KeywordLocation
	up:
		for kl != "" {
			kl = kl[:strings.LastIndexByte(kl, '/')]
			var best *outNode
			for _, c := range byKL[kl] {
				if hasTokenPrefix(n.unit.InstanceLocation, c.unit.InstanceLocation) && c != n &&
					(best == nil || len(c.unit.InstanceLocation) > len(best.unit.InstanceLocation)) {
					best = c
				}
			}
			if best != nil {
				parent = best
				break up
			}
		}
		parent.kids = append(parent.kids, n)
	}
	markBad(rootNode)
	u := finish(rootNode, f == OutputVerbose, true)
	return &u
}

// markBad sets bad on the nodes with an error below, and their units' Valid.
func markBad(n *outNode) bool {
	for _, l := range n.leaves {
		if !l.Valid {
			n.bad = true
		}
	}
	for _, k := range n.kids {
		if markBad(k) {
			n.bad = true
		}
	}
	n.unit.Valid = !n.bad && !n.failed
	return n.bad
}

// finish makes a node's unit: its leaves and its children's units, under errors or
// annotations as each is valid; detailed (not verbose) leaves out valid units without
// annotations and replaces a unit that holds one unit by that unit.
func finish(n *outNode, verbose, isRoot bool) OutputUnit {
	u := n.unit
	var parts []OutputUnit
	parts = append(parts, n.leaves...)
	for _, k := range n.kids {
		ku := finish(k, verbose, false)
		if !verbose && ku.Valid && len(ku.Annotations) == 0 && ku.Annotation == nil {
			continue
		}
		parts = append(parts, ku)
	}
	if !verbose && !isRoot && len(parts) == 1 {
		return parts[0]
	}
	for _, p := range parts {
		if p.Valid {
			if !n.bad || verbose {
				u.Annotations = append(u.Annotations, p)
			}
		} else {
			u.Errors = append(u.Errors, p)
		}
	}
	if !u.Valid && len(u.Errors) == 0 && u.Error == "" {
		u.Error = "the subschema fails here (not explained: the keyword that applied it passed, or ignores why)"
	}
	return u
}

func errorUnit(e Error) OutputUnit {
	return OutputUnit{KeywordLocation: e.KeywordLocation, AbsoluteKeywordLocation: e.AbsoluteKeywordLocation,
		InstanceLocation: e.InstanceLocation, Error: e.Message}
}

func annotationUnit(a AnnotationUnit) OutputUnit {
	return OutputUnit{Valid: true, KeywordLocation: a.KeywordLocation, AbsoluteKeywordLocation: a.AbsoluteKeywordLocation,
		InstanceLocation: a.InstanceLocation, Annotation: a.Value}
}
