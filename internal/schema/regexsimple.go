package schema

import (
	"context"
	"regexp"
	"regexp/syntax"
)

// simpleRe is a pattern anchored at its start that is a sequence of ASCII classes, each
// repeated a bounded or unbounded number of times, like "^[A-Z]{3}-[0-9]{6}$" or
// "^\+[1-9][0-9]{6,14}$": most patterns of real schemas. It matches in one pass over the
// bytes, without Go's regexp machine (13% of the reference NDJSON workload's CPU went into
// it). It is only built where greedy consumption decides the match exactly: a repeated
// item whose count may vary is never followed by an item that can start with one of its
// characters. Its answers are Go's regexp's on the RE2 translation (TestSimplePattern
// compares them), which toRE2 made the pattern's ECMA-262 meaning.
type simpleRe struct {
	items  []simpleItem
	endAnc bool // the pattern ends with $: the match must reach the end of the string
	re     *regexp.Regexp
	src    string
}

// simpleItem is one class with its count: between min and max characters (max < 0: no
// bound).
type simpleItem struct {
	set      [2]uint64 // the ASCII characters of the class, by bit
	min, max int
}

func (it *simpleItem) has(c byte) bool {
	return c < 0x80 && it.set[c>>6]&(1<<(c&63)) != 0
}

func (r *simpleRe) Match(s string) (bool, error) { return r.match(s), nil }
func (r *simpleRe) String() string               { return r.src }

// MatchContext matches in linear time: it neither draws on the budget nor needs the
// context.
func (r *simpleRe) MatchContext(_ context.Context, s string) (bool, error) {
	return r.match(s), nil
}

func (r *simpleRe) match(s string) bool {
	i := 0
	for k := range r.items {
		it := &r.items[k]
		n := 0
		for n < it.min {
			if i >= len(s) || !it.has(s[i]) {
				return false
			}
			i++
			n++
		}
		for (it.max < 0 || n < it.max) && i < len(s) && it.has(s[i]) {
			i++
			n++
		}
	}
	return !r.endAnc || i == len(s)
}

// maxSimpleItems bounds the items of a simple pattern (a longer literal is left to regexp).
const maxSimpleItems = 64

// simplePattern returns re's pattern as a simpleRe when it is one (see simpleRe).
func simplePattern(re *regexp.Regexp, src string) (*simpleRe, bool) {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil, false
	}
	var subs []*syntax.Regexp
	if tree.Op == syntax.OpConcat {
		subs = tree.Sub
	} else {
		subs = []*syntax.Regexp{tree}
	}
	if len(subs) == 0 || subs[0].Op != syntax.OpBeginText {
		return nil, false
	}
	subs = subs[1:]
	r := &simpleRe{re: re, src: src}
	if n := len(subs); n > 0 && subs[n-1].Op == syntax.OpEndText {
		r.endAnc = true
		subs = subs[:n-1]
	}
	for _, sub := range subs {
		if !r.add(sub) || len(r.items) > maxSimpleItems {
			return nil, false
		}
	}
	if !r.deterministic() {
		return nil, false
	}
	return r, true
}

// add appends the items of one part of the pattern's top-level sequence.
func (r *simpleRe) add(sub *syntax.Regexp) bool {
	if sub.Flags&syntax.FoldCase != 0 {
		return false
	}
	switch sub.Op {
	case syntax.OpLiteral:
		for _, c := range sub.Rune {
			it, ok := classItem([]rune{c, c})
			if !ok {
				return false
			}
			r.items = append(r.items, it)
		}
		return true
	case syntax.OpCharClass:
		it, ok := classItem(sub.Rune)
		if ok {
			r.items = append(r.items, it)
		}
		return ok
	case syntax.OpRepeat, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		it, ok := oneClass(sub.Sub[0])
		if !ok {
			return false
		}
		switch sub.Op {
		case syntax.OpRepeat:
			it.min, it.max = sub.Min, sub.Max
		case syntax.OpStar:
			it.min, it.max = 0, -1
		case syntax.OpPlus:
			it.min, it.max = 1, -1
		case syntax.OpQuest:
			it.min, it.max = 0, 1
		}
		r.items = append(r.items, it)
		return true
	}
	return false
}

// oneClass is the class of a repeated part: one character or one class.
func oneClass(sub *syntax.Regexp) (simpleItem, bool) {
	if sub.Flags&syntax.FoldCase != 0 {
		return simpleItem{}, false
	}
	switch {
	case sub.Op == syntax.OpLiteral && len(sub.Rune) == 1:
		return classItem([]rune{sub.Rune[0], sub.Rune[0]})
	case sub.Op == syntax.OpCharClass:
		return classItem(sub.Rune)
	}
	return simpleItem{}, false
}

// classItem makes a class of ranges (lo, hi pairs) that are all ASCII, counted once.
func classItem(ranges []rune) (simpleItem, bool) {
	it := simpleItem{min: 1, max: 1}
	if len(ranges) == 0 {
		return it, false
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo < 0 || hi >= 0x80 || lo > hi {
			return it, false
		}
		for c := lo; c <= hi; c++ {
			it.set[c>>6] |= 1 << (c & 63)
		}
	}
	return it, true
}

// deterministic reports whether greedy consumption decides every match: after an item
// whose count may vary, no character it takes can start what follows it.
func (r *simpleRe) deterministic() bool {
	for i := range r.items {
		it := &r.items[i]
		if it.max >= 0 && it.min == it.max {
			continue
		}
		for j := i + 1; j < len(r.items); j++ {
			next := &r.items[j]
			if it.set[0]&next.set[0] != 0 || it.set[1]&next.set[1] != 0 {
				return false
			}
			if next.min > 0 {
				break
			}
		}
	}
	return true
}
