package schema

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/jstk-dev/jstk/internal/source"
)

// This file is annotation collection: what the keywords of the schemas an instance passes
// attach to its values (2020-12 core, section 7.7). It runs in the one evaluator, behind
// one flag (evaluator.annot) checked where an evaluation starts: evaluations that do not
// ask for annotations take none of these paths.

// AnnotationUnit is one value a keyword attached to a location of the instance, in the
// spirit of the specification's output units.
type AnnotationUnit struct {
	// InstanceLocation is the JSON Pointer of the annotated value in the instance.
	InstanceLocation string `json:"instanceLocation"`
	// KeywordLocation is the path of keywords evaluated to reach the keyword, through
	// references.
	KeywordLocation string `json:"keywordLocation"`
	// AbsoluteKeywordLocation is the keyword's absolute URI.
	AbsoluteKeywordLocation string `json:"absoluteKeywordLocation"`
	// Keyword is the annotating keyword (title, default, properties, an unknown keyword...).
	Keyword string `json:"keyword"`
	// Value is the annotation: the keyword's value for the meta-data, content, format and
	// unknown keywords; for the applicators, what they applied to (the property names
	// for properties, patternProperties, additionalProperties and unevaluatedProperties,
	// the largest index or true for prefixItems and items, the indices matched for
	// contains, true for unevaluatedItems), as the specification defines.
	Value json.RawMessage `json:"annotation"`

	schema *Schema
}

// Schema returns the schema whose keyword made the annotation.
func (a *AnnotationUnit) Schema() *Schema { return a.schema }

// Annotate evaluates an instance like Validate and also returns the annotations of the
// schemas it passes (none when it fails: a failing schema's annotations, and those of
// its subschemas, are dropped, as the specification says; so are those of the
// alternatives that fail, of "not", and of an "if" that fails).
func (s *Schema) Annotate(ctx context.Context, v source.Value) (errs []Error, anns []AnnotationUnit, err error) {
	e := getEvaluator(ctx, true)
	defer putEvaluator(e)
	e.annot = true
	e.eval(s, v, nil)
	if e.fatal != nil {
		return nil, nil, e.fatal
	}
	if len(e.errs) > 0 {
		errs = make([]Error, len(e.errs))
		copy(errs, e.errs)
	}
	if len(e.annots) > 0 {
		anns = make([]AnnotationUnit, len(e.annots))
		copy(anns, e.annots)
	}
	return errs, anns, nil
}

// evalAnnotated is eval when annotations are collected: s's annotations are added once s
// passes, and everything its subschemas added is dropped when it fails. Of eval's memo of
// verdicts in alternatives nested in alternatives, only the failures are taken (a failing
// schema has no annotations; a passing one is evaluated again for its own), so that
// nested alternatives that fail are not evaluated exponentially often here either.
func (e *evaluator) evalAnnotated(s *Schema, v source.Value, ann *annotations) bool {
	switch s.always {
	case alwaysTrue:
		return true
	case alwaysFalse:
		return e.fail(s, "", "no value is allowed here (the schema is false)")
	}
	var k memoKey
	memo := e.quietDepth >= 2 && !e.collect && ann == nil && !e.verbose && !s.info.dynamic.Load()
	if memo {
		k = memoKey{s, v.Identity()}
		if ok, seen := e.memo[k]; seen && !ok {
			return false
		}
		memo = k.id != 0
	}
	mark := len(e.annots)
	ok := e.evalScoped(s, v, ann)
	if memo && !e.stopped() {
		if e.memo == nil {
			e.memo = map[memoKey]bool{}
		}
		e.memo[k] = ok
	}
	if e.verbose {
		e.recordNode(s, ok)
	}
	if !ok {
		e.dropAnnotations(mark)
		return false
	}
	if !e.stopped() {
		e.annotate(s, v)
	}
	return true
}

// annotate adds the annotations of s's own keywords on v, in document order.
func (e *evaluator) annotate(s *Schema, v source.Value) {
	if s.val.Kind() != source.Object {
		return
	}
	for i := 0; i < s.val.Len(); i++ {
		k, val := s.val.Member(i)
		kw := k.Str()
		if s.Ignored(kw) {
			continue
		}
		m, known := s.Draft.Keyword(kw)
		if !known {
			if s.Draft.Version >= 2019 && !isKnownElsewhere(kw) {
				e.addAnnotation(s, kw, source.AppendJSON(nil, val)) // an unknown keyword
			}
			continue
		}
		switch m.Kind {
		case Annotation:
			if !typeMatches(m.Types, v) {
				continue
			}
			if kw == "contentSchema" {
				if _, ok := s.val.Get("contentMediaType"); !ok {
					continue // it annotates only with contentMediaType
				}
			}
			e.addAnnotation(s, kw, source.AppendJSON(nil, val))
		case Applicator:
			e.annotateApplicator(s, kw, v)
		}
	}
}

// isKnownElsewhere reports whether another draft reads kw as a keyword of the core
// (an identifier or a reference, whose sibling drafts name them differently): those are
// not annotations wherever they are written.
func isKnownElsewhere(kw string) bool {
	for _, d := range Drafts {
		if k, ok := d.Keyword(kw); ok && (k.Kind == Identifier || k.Kind == Core || k.Kind == Reference) {
			return true
		}
	}
	return false
}

// annotateApplicator adds the annotation an applicator of 2019-09 and later makes on v
// (2020-12 core, section 10; unevaluated* add theirs as they apply, evalUnevaluated).
func (e *evaluator) annotateApplicator(s *Schema, kw string, v source.Value) {
	if s.Draft.Version < 2019 {
		return
	}
	switch v.Kind() {
	case source.Object:
		var names []string
		n := v.Len()
		switch kw {
		case "properties":
			for i := 0; i < n; i++ {
				if _, ok := s.properties[v.Key(i)]; ok {
					names = append(names, v.Key(i))
				}
			}
		case "patternProperties":
			for i := 0; i < n; i++ {
				if e.matchesPattern(s, v.Key(i)) {
					names = append(names, v.Key(i))
				}
			}
		case "additionalProperties":
			if s.additionalProps == nil {
				return
			}
			for i := 0; i < n; i++ {
				key := v.Key(i)
				if _, ok := s.properties[key]; !ok && !e.matchesPattern(s, key) {
					names = append(names, key)
				}
			}
		default:
			return
		}
		if len(names) > 0 {
			b, _ := json.Marshal(names)
			e.addAnnotation(s, kw, b)
		}
	case source.Array:
		n := v.Len()
		switch {
		case n == 0:
		case kw == s.prefixKw && len(s.prefixItems) > 0:
			if n <= len(s.prefixItems) {
				e.addAnnotation(s, kw, []byte("true"))
			} else {
				e.addAnnotation(s, kw, strconv.AppendInt(nil, int64(len(s.prefixItems)-1), 10))
			}
		case kw == s.itemsKw && s.items != nil && n > len(s.prefixItems):
			e.addAnnotation(s, kw, []byte("true"))
		case kw == "contains" && s.contains != nil && s.Draft.Version >= 2020:
			e.annotateContains(s, v)
		}
	}
}

// matchesPattern reports whether a patternProperties pattern of s matches key.
func (e *evaluator) matchesPattern(s *Schema, key string) bool {
	for _, pp := range s.patternProps {
		if m, err := pp.re.MatchContext(e.ctx, key); err == nil && m {
			return true
		}
	}
	return false
}

// annotateContains adds contains' annotation: the indices of the items it matches, found
// again without annotations (those of the matching items were collected as contains
// applied).
func (e *evaluator) annotateContains(s *Schema, v source.Value) {
	var idx []int
	e.annot = false
	for i, item := range v.Items() {
		e.pushK("contains")
		e.pushIi(i)
		ok := e.quietly(func() bool { return e.child(s.contains, item) })
		e.popI()
		e.popK(1)
		if ok {
			idx = append(idx, i)
		}
	}
	e.annot = true
	if len(idx) > 0 {
		b, _ := json.Marshal(idx)
		e.addAnnotation(s, "contains", b)
	}
}

// annotateUnevaluated adds the annotation of unevaluatedProperties (names) or
// unevaluatedItems (true), made when they applied to something.
func (e *evaluator) annotateUnevaluated(s *Schema, kw string, names []string) {
	if kw == "unevaluatedItems" {
		e.addAnnotation(s, kw, []byte("true"))
		return
	}
	b, _ := json.Marshal(names)
	e.addAnnotation(s, kw, b)
}

// addAnnotation adds keyword kw of s's annotation at the current locations.
func (e *evaluator) addAnnotation(s *Schema, kw string, value []byte) {
	tok := source.EscapeToken(kw)
	e.annots = append(e.annots, AnnotationUnit{
		InstanceLocation:        joinPath(e.ipath),
		KeywordLocation:         joinPath(e.kpath) + "/" + tok,
		AbsoluteKeywordLocation: s.Location() + "/" + tok,
		Keyword:                 kw,
		Value:                   value,
		schema:                  s,
	})
}

// dropAnnotations drops the annotations added since there were mark.
func (e *evaluator) dropAnnotations(mark int) {
	clear(e.annots[mark:])
	e.annots = e.annots[:mark]
}
