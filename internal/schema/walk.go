package schema

import (
	"slices"
	"strconv"

	"github.com/jstk-dev/jstk/internal/source"
)

// This file is the read-only view of a compiled schema for the engines that reason about
// schemas rather than instances (diff, lint, bundle, sample, coverage): the raw keywords,
// the compiled subschemas, and the resolved references.

// Bool reports whether s is a boolean schema, and which.
func (s *Schema) Bool() (value, isBool bool) {
	switch s.always {
	case alwaysTrue:
		return true, true
	case alwaysFalse:
		return false, true
	}
	return false, false
}

// Keyword returns the raw value of a keyword of the schema object; ok is false when the
// keyword is absent or s is a boolean schema. The keyword's value is returned even when
// the dialect ignores it (see Ignored).
func (s *Schema) Keyword(kw string) (source.Value, bool) {
	if s.always != alwaysNone {
		return source.Value{}, false
	}
	return s.Value().Get(kw)
}

// Keywords lists the schema object's keywords in document order.
func (s *Schema) Keywords() []string { return s.keywords }

// Ignored reports whether the dialect ignores keyword kw here: a sibling of $ref in
// drafts 4 to 7, a keyword of a vocabulary the meta-schema does not enable, or, with
// Options.StrictDraft, a keyword of a later draft (const, contains, propertyNames from
// draft 6; if, then, else from draft 7) in a draft 4 or 6 schema.
func (s *Schema) Ignored(kw string) bool {
	if s.hasRef && kw != "$ref" {
		return true
	}
	if s.info.strict {
		if k, ok := s.Draft.Keyword(kw); ok && k.Support == Lenient {
			return true
		}
	}
	return vocabOff(s.Draft, s.res, kw)
}

// Ref returns the target of $ref, or nil.
func (s *Schema) Ref() *Schema { return s.ref }

// DynamicRef returns the static target of $dynamicRef (2020-12) or $recursiveRef
// (2019-09), and whether the reference is dynamic (its target may change with the dynamic
// scope).
func (s *Schema) DynamicRef() (target *Schema, dynamic bool) {
	if s.dynRef != nil {
		return s.dynRef, s.dynAnchor != ""
	}
	if s.recursiveRef != nil {
		return s.recursiveRef, s.recursiveRef.res.recursive
	}
	return nil, false
}

// CompiledCount reports how many schemas the compilers of ss have compiled so far, each
// compiler counted once (nil entries are skipped): a size hint for tables kept per schema.
func CompiledCount(ss ...*Schema) int {
	n := 0
	for i, s := range ss {
		if s == nil || slices.ContainsFunc(ss[:i], func(t *Schema) bool { return t != nil && t.info == s.info }) {
			continue
		}
		n += int(s.info.schemas.Load())
	}
	return n
}

// A CompilerID identifies the compiler that made a schema (Index).
type CompilerID struct{ info *compileInfo }

// Index numbers the schemas of one compiler from 0 without gaps, in the order the compiler
// began them, so that tables kept per schema (by the engines that compare schemas) can be
// slices, one per compiler, instead of maps. The numbers of a compiler's schemas stay below
// CompiledCount of any of them.
func (s *Schema) Index() (CompilerID, int) { return CompilerID{s.info}, s.index }

// BaseURI is the base URI of the schema's resource.
func (s *Schema) BaseURI() string { return s.res.uri }

// FormatAsserted reports whether "format" is an assertion for this schema.
func (s *Schema) FormatAsserted() bool { return s.assertFmt }

// Child is one direct subschema.
type Child struct {
	// Keyword is the applicator ("properties", "items", "allOf", ...).
	Keyword string
	// Key is the property name, pattern or dependency name for keywords that map names to
	// schemas, the index for keywords that list schemas, and "" otherwise.
	Key string
	// Index is the position in a list keyword, or -1.
	Index int
	// Schema is the compiled subschema.
	Schema *Schema
}

// Path is the child's JSON Pointer relative to its parent, e.g. "/properties/name".
func (c Child) Path() string {
	p := "/" + source.EscapeToken(c.Keyword)
	switch {
	case c.Index >= 0:
		p += "/" + strconv.Itoa(c.Index)
	case c.Key != "":
		p += "/" + source.EscapeToken(c.Key)
	}
	return p
}

// Children lists the direct subschemas the dialect applies, in a fixed keyword order.
// References are not children: follow Ref and DynamicRef.
func (s *Schema) Children() []Child {
	if n := s.childCount(); n > 0 {
		return s.AppendChildren(make([]Child, 0, n))
	}
	return nil
}

// AppendChildren appends the children of s (see Children) to out and returns the
// extended slice: a caller that reads the children of many schemas reuses one buffer.
func (s *Schema) AppendChildren(out []Child) []Child {
	if s.always != alwaysNone || s.hasRef {
		return out
	}
	one := func(kw string, c *Schema) {
		if c != nil {
			out = append(out, Child{Keyword: kw, Index: -1, Schema: c})
		}
	}
	list := func(kw string, cs []*Schema) {
		for i, c := range cs {
			if c != nil {
				out = append(out, Child{Keyword: kw, Index: i, Schema: c})
			}
		}
	}
	for _, k := range s.propKeys {
		out = append(out, Child{Keyword: "properties", Key: k, Index: -1, Schema: s.properties[k]})
	}
	for _, pp := range s.patternProps {
		out = append(out, Child{Keyword: "patternProperties", Key: pp.src, Index: -1, Schema: pp.schema})
	}
	one("additionalProperties", s.additionalProps)
	one("propertyNames", s.propertyNames)
	for _, ds := range s.depSchemas {
		out = append(out, Child{Keyword: ds.kw, Key: ds.prop, Index: -1, Schema: ds.schema})
	}
	list(s.prefixKw, s.prefixItems)
	one(s.itemsKw, s.items)
	one("contains", s.contains)
	list("allOf", s.allOf)
	list("anyOf", s.anyOf)
	list("oneOf", s.oneOf)
	one("not", s.not)
	one("if", s.ifS)
	one("then", s.thenS)
	one("else", s.elseS)
	one("unevaluatedProperties", s.unevalProps)
	one("unevaluatedItems", s.unevalItems)
	one("contentSchema", s.contentSchema)
	return out
}

// childCount is the number of children of s.
func (s *Schema) childCount() int {
	if s.always != alwaysNone || s.hasRef {
		return 0
	}
	n := len(s.propKeys) + len(s.patternProps) + len(s.depSchemas) + len(s.prefixItems) +
		len(s.allOf) + len(s.anyOf) + len(s.oneOf)
	for _, c := range [...]*Schema{s.additionalProps, s.propertyNames, s.items, s.contains, s.not,
		s.ifS, s.thenS, s.elseS, s.unevalProps, s.unevalItems, s.contentSchema} {
		if c != nil {
			n++
		}
	}
	return n
}

// Properties returns the schemas of the properties keyword by name (nil when absent).
// The map is the compiled schema's own: callers must not modify it.
func (s *Schema) Properties() map[string]*Schema { return s.properties }

// PropertyNames returns the names of the properties keyword, sorted. The slice is the
// compiled schema's own: callers must not modify it.
func (s *Schema) PropertyNames() []string { return s.propKeys }

// Walk visits s and every schema reachable from it through children and references,
// each once, depth first. fn returns false to stop descending below a schema. Walk keeps
// its own stack, so the depth of a schema does not count against the goroutine's.
func Walk(s *Schema, fn func(*Schema) bool) {
	seen := map[*Schema]bool{}
	stack := []*Schema{s}
	var kids []Child
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s == nil || seen[s] {
			continue
		}
		seen[s] = true
		if !fn(s) {
			continue
		}
		mark := len(stack)
		kids = s.AppendChildren(kids[:0])
		for _, c := range kids {
			stack = append(stack, c.Schema)
		}
		for _, t := range [...]*Schema{s.ref, s.dynRef, s.recursiveRef} {
			if t != nil {
				stack = append(stack, t)
			}
		}
		if s.dynAnchor != "" {
			for _, t := range s.res.dynSchemas {
				stack = append(stack, t)
			}
		}
		slices.Reverse(stack[mark:]) // the first child is visited first
	}
}
