package jsonschema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Annotation is one value a keyword attached to a location of the instance (2020-12
// core, section 7.7): what title, description, default, deprecated, readOnly, writeOnly,
// examples, format, contentMediaType, contentEncoding, contentSchema and unknown keywords
// say about it, and what the applicators (properties, items, contains, unevaluated*...)
// applied to.
type Annotation struct {
	// InstanceLocation is the JSON Pointer of the annotated value in the instance.
	InstanceLocation string `json:"instanceLocation"`
	// KeywordLocation is the path of keywords evaluated to reach the keyword, through
	// references.
	KeywordLocation string `json:"keywordLocation"`
	// AbsoluteKeywordLocation is the keyword's absolute URI.
	AbsoluteKeywordLocation string `json:"absoluteKeywordLocation"`
	// Keyword is the annotating keyword.
	Keyword string `json:"keyword"`
	// Value is the annotation as JSON: the keyword's value (numbers as written), or for an
	// applicator what it applied to (property names, the largest index or true, the
	// indices contains matched).
	Value json.RawMessage `json:"annotation"`
}

// Annotate evaluates v like Validate and also returns the annotations of the schemas
// it passes. A failing schema's annotations, and its subschemas', are dropped, as the
// specification says: an invalid instance has errors and no annotations.
func (s *Schema) Annotate(ctx context.Context, v any) (anns []Annotation, errs []Error, err error) {
	val, err := source.FromAny(v)
	if err != nil {
		return nil, nil, fmt.Errorf("instance: %w", err)
	}
	found, units, err := s.s.Annotate(s.ctx(ctx), val)
	if err != nil {
		return nil, nil, err
	}
	for _, u := range units {
		anns = append(anns, Annotation{InstanceLocation: u.InstanceLocation, KeywordLocation: u.KeywordLocation,
			AbsoluteKeywordLocation: u.AbsoluteKeywordLocation, Keyword: u.Keyword, Value: u.Value})
	}
	return anns, convert(validateLocate(found)), nil
}

// OutputFormat names one of the specification's output formats (2020-12 core, section
// 12.4).
type OutputFormat string

// The output formats.
const (
	// Flag is the verdict alone: {"valid": true}.
	Flag OutputFormat = "flag"
	// Basic is a flat list of the errors (invalid) or of the annotations (valid).
	Basic OutputFormat = "basic"
	// Detailed is a hierarchy following the schema's; a unit that holds a single unit is
	// replaced by it, and valid subschemas without annotations are left out.
	Detailed OutputFormat = "detailed"
	// Verbose is the whole hierarchy: every subschema evaluated has its unit.
	Verbose OutputFormat = "verbose"
)

// OutputUnit is one unit of the specification's output. Marshalled with encoding/json,
// the unit of Output is the specification's document for its format.
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

	flag bool
}

// MarshalJSON writes the unit as the specification shapes it: the Flag format has only
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

// Output evaluates v and returns the result in the given format. err is non-nil only when
// the format is unknown or the evaluation could not be completed.
func (s *Schema) Output(ctx context.Context, v any, format OutputFormat) (*OutputUnit, error) {
	val, err := source.FromAny(v)
	if err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	return s.output(ctx, val, format)
}

// OutputBytes is Output of a JSON document (a *SyntaxError when it is not JSON).
func (s *Schema) OutputBytes(ctx context.Context, data []byte, format OutputFormat) (*OutputUnit, error) {
	doc, err := source.ParseJSON("", data, s.limits)
	if err != nil {
		var pe *source.Error
		if errors.As(err, &pe) {
			return nil, &SyntaxError{Line: pe.Line, Column: pe.Column, Message: err.Error()}
		}
		return nil, err
	}
	return s.output(ctx, doc.Root, format)
}

func (s *Schema) output(ctx context.Context, v source.Value, format OutputFormat) (*OutputUnit, error) {
	u, err := s.s.Output(s.ctx(ctx), v, schema.OutputFormat(format))
	if err != nil {
		return nil, err
	}
	out := outputUnit(*u)
	out.flag = format == Flag
	return &out, nil
}

func outputUnit(u schema.OutputUnit) OutputUnit {
	out := OutputUnit{Valid: u.Valid, KeywordLocation: u.KeywordLocation, AbsoluteKeywordLocation: u.AbsoluteKeywordLocation,
		InstanceLocation: u.InstanceLocation, Error: u.Error, Annotation: u.Annotation}
	for _, e := range u.Errors {
		out.Errors = append(out.Errors, outputUnit(e))
	}
	for _, a := range u.Annotations {
		out.Annotations = append(out.Annotations, outputUnit(a))
	}
	return out
}
