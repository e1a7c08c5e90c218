package schema

import (
	"slices"

	"github.com/jstk-dev/jstk/internal/source"
)

// propIndex finds, for a member name of an instance, the subschema properties gives it
// and whether required names it, with one multiply and one string comparison: a perfect
// hash over the schema's names, found when the schema is compiled (Blaze's precomputed
// property lookups). Looking names up in the properties map and scanning the object for
// each required name took a quarter of the evaluation of the reference NDJSON workload.
type propIndex struct {
	mul   uint32
	shift uint8
	slots []propSlot
	// all has a bit for each required name: the members of a valid object set them all.
	all uint64
}

// propSlot is one name of properties or required.
type propSlot struct {
	name string
	sub  *Schema // properties' subschema for it, when prop
	req  uint64  // its bit among the required names (0: not required)
	used bool
	prop bool // properties names it
}

// maxIndexedNames bounds the names a propIndex is searched for; a schema with more uses the
// properties map.
const maxIndexedNames = 128

// propMultipliers is how many multipliers are tried for each table size.
const propMultipliers = 48

// nameKey mixes the length and three bytes of a name: the names of one schema seldom share
// all four.
func nameKey(name string) uint32 {
	n := len(name)
	if n == 0 {
		return 0
	}
	return uint32(n) ^ uint32(name[0])<<8 ^ uint32(name[n>>1])<<16 ^ uint32(name[n-1])<<24
}

func (x *propIndex) slot(name string) *propSlot {
	sl := &x.slots[(nameKey(name)*x.mul)>>x.shift]
	if sl.used && sl.name == name {
		return sl
	}
	return nil
}

// buildPropIndex makes s's index, or leaves it nil when s has more names than
// maxIndexedNames, more than 64 required names, or names no multiplier separates.
func (s *Schema) buildPropIndex() {
	if len(s.properties) == 0 && len(s.required) == 0 {
		return
	}
	if len(s.required) > 64 {
		return
	}
	if len(s.propKeys)+len(s.required) > 2*maxIndexedNames {
		return
	}
	names := make([]string, 0, len(s.propKeys)+len(s.required))
	names = append(names, s.propKeys...) // the keys of a map: distinct
	for i, r := range s.required {
		if _, ok := s.properties[r]; !ok && !slices.Contains(s.required[:i], r) {
			names = append(names, r)
		}
	}
	if len(names) > maxIndexedNames {
		return
	}
	bits := uint8(1)
	for 1<<bits < 2*len(names) {
		bits++
	}
	keys := make([]uint32, len(names))
	for i, n := range names {
		keys[i] = nameKey(n)
	}
	for b := bits; b < bits+3; b++ {
		if mul, ok := separate(keys, b); ok {
			s.propIdx = s.fillPropIndex(names, mul, b)
			return
		}
	}
}

// separate finds an odd multiplier that sends every key to its own slot of a table of
// 2^bits.
func separate(keys []uint32, bits uint8) (uint32, bool) {
	used := make([]bool, 1<<bits)
	mul := uint32(0x9E3779B1)
	for range propMultipliers {
		clear(used)
		ok := true
		for _, k := range keys {
			h := (k * mul) >> (32 - bits)
			if used[h] {
				ok = false
				break
			}
			used[h] = true
		}
		if ok {
			return mul, true
		}
		mul = mul*0x2C1B3C6D + 0x297A2D39 | 1
	}
	return 0, false
}

func (s *Schema) fillPropIndex(names []string, mul uint32, bits uint8) *propIndex {
	x := &propIndex{mul: mul, shift: 32 - bits, slots: make([]propSlot, 1<<bits)}
	for _, n := range names {
		sl := &x.slots[(nameKey(n)*mul)>>x.shift]
		sl.name, sl.used = n, true
		sl.sub, sl.prop = s.properties[n]
	}
	for i, r := range s.required {
		sl := x.slot(r)
		if sl.req == 0 {
			sl.req = 1 << i
			x.all |= sl.req
		}
	}
	return x
}

// hasRequired reports whether the object v (of n members) has every required name.
func (x *propIndex) hasRequired(v source.Value, n int) bool {
	var seen uint64
	for i := 0; i < n; i++ {
		if sl := x.slot(v.Key(i)); sl != nil {
			seen |= sl.req
		}
	}
	return seen == x.all
}

// kwGroup is a set of the groups of keywords evalIn dispatches to.
type kwGroup uint8

const (
	groupValue       kwGroup = 1 << iota // const, enum, format
	groupRefs                            // $ref beside other keywords, $dynamicRef, $recursiveRef
	groupNumber                          // minimum, maximum, exclusive bounds, multipleOf
	groupString                          // minLength, maxLength, pattern, content
	groupArray                           // the array keywords (see evalArray)
	groupObject                          // the object keywords (see evalObject)
	groupApplicators                     // allOf, anyOf, oneOf, not, if
)

// keywordGroups returns the groups of keywords s has (after its keywords are compiled).
func (s *Schema) keywordGroups() kwGroup {
	var g kwGroup
	set := func(has bool, bit kwGroup) {
		if has {
			g |= bit
		}
	}
	set(s.constV != nil || s.enum != nil || s.format != nil, groupValue)
	set(s.ref != nil || s.dynRef != nil || s.recursiveRef != nil, groupRefs)
	set(s.multipleOf != nil || s.minimum != nil || s.maximum != nil || s.exclMin != nil || s.exclMax != nil, groupNumber)
	set(s.minLength >= 0 || s.maxLength >= 0 || s.pattern != nil || s.assertContent, groupString)
	set(s.minItems >= 0 || s.maxItems >= 0 || s.uniqueItems || s.prefixItems != nil || s.items != nil || s.contains != nil, groupArray)
	set(s.minProps >= 0 || s.maxProps >= 0 || s.required != nil || s.depRequired != nil || s.properties != nil ||
		s.patternProps != nil || s.additionalProps != nil || s.propertyNames != nil || s.depSchemas != nil, groupObject)
	set(s.allOf != nil || s.anyOf != nil || s.oneOf != nil || s.not != nil || s.ifS != nil, groupApplicators)
	return g
}
