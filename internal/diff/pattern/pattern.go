// Package pattern owns ECMA-262 patterns as languages, for the diff: a pattern translated
// to a Thompson NFA over code points with a lazily built DFA (Automaton), the automata
// shared by every comparison of the process, and the solver that answers questions over
// several of them (Query, Solve: a shortest string matching these and none of those, of a
// length in a range, or the certainty that none exists). It knows nothing of schemas.
package pattern

import (
	"cmp"
	"encoding/binary"
	"errors"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/jstk-dev/jstk/internal/schema"
)

// The package decides questions about ECMA-262 patterns as languages: does every string that
// matches P also match Q, is there a string matching P and not Q, which short strings match.
// A pattern is translated to a Thompson NFA over Unicode code points with the search
// semantics of JSON Schema (a pattern matches a string when it matches anywhere in it,
// unless anchored). Patterns beyond the supported subset (lookaround, backreferences, word
// boundaries, case folding) are "unsupported": the prover then answers unknown and the
// search falls back on the real matcher.

// errUnsupported marks a pattern the automata cannot represent exactly.
var errUnsupported = errors.New("pattern outside the supported subset")

const maxNFAStates = 20000

type nstate struct {
	op     uint8 // opChar, opSplit, opBegin, opEnd, opMatch, opDead
	ranges []rune
	out    int
	out1   int
}

const (
	opChar uint8 = iota
	opSplit
	opBegin
	opEnd
	opMatch
	opDead
)

// Automaton is a pattern as an NFA with its lazily built DFA. Comparisons share it (see
// sharedAutomaton): the NFA does not change once compiled, and the DFA grows only under mu,
// which Solve holds for the whole question.
type Automaton struct {
	mu     sync.Mutex
	id     uint64 // the order Solve locks automata in
	src    string
	states []nstate
	start  int
	// DFA: states are sets of NFA states; id 0 is the start set.
	sets  []dfaSet
	index map[string]int
	trans map[transKey]int
	// cuts are the range boundaries of the NFA's char states, sorted: the runes between two
	// cuts (a class) lead every state to the same place, so a transition is kept once per
	// class, in dense (a row per DFA state, when there are at most maxDenseClasses classes)
	// or in trans.
	cuts  []rune
	dense [][]int32 // set -> class -> next set + 1 (0: not known yet)

	// scratch space of closure and intern, reused from call to call
	seen   []bool // by NFA state
	stack  []int
	keyBuf []byte
}

type dfaSet struct {
	states  []int
	atStart bool
	accept  bool
	dead    bool // no match is possible any more and none was found
	all     bool // every continuation is accepted (a match already happened)
	sink    int8 // 0: not known yet; 1: never accepts and every rune leads back to it; 2: not so
}

type transKey struct {
	set int
	r   rune
}

// ECMA-262 white space and line terminators (\s).
const ecmaSpace = `\t\n\x{b}\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// translate rewrites an ECMA-262 pattern into Go regexp/syntax with the same meaning, or
// fails with errUnsupported.
func translate(p string) (string, error) {
	t := &translator{p: p}
	for ; t.i < len(p); t.i++ {
		if err := t.next(); err != nil {
			return "", err
		}
	}
	if t.inClass {
		return "", errUnsupported
	}
	return t.sb.String(), nil
}

// translator is translate's reading of one pattern: where it is and what it wrote.
type translator struct {
	p       string
	i       int  // the byte being read; a piece that reads more leaves i on its last byte
	inClass bool // inside a character class [...]
	sb      strings.Builder
}

// next translates the piece that begins at byte i: an escape, a byte of a class, the
// opening of a class or of a group, or a byte that means the same in both syntaxes.
func (t *translator) next() error {
	c := t.p[t.i]
	switch {
	case c == '\\':
		return t.escape()
	case t.inClass:
		t.classByte(c)
	case c == '[':
		return t.openClass()
	case c == '(':
		return t.openGroup()
	default:
		t.sb.WriteByte(c)
	}
	return nil
}

// escapes translate the ECMA-262 escapes \X by the ASCII byte X, after the backslash (at
// t.i); an ASCII letter or digit not listed is unsupported (backreferences, \B, \c, \k and
// identity escapes of letters), any other byte stands for itself.
var escapes = [utf8.RuneSelf]func(t *translator, e byte) error{
	'd': keepEscape, 'D': keepEscape, 'w': keepEscape, 'W': keepEscape,
	'f': keepEscape, 'n': keepEscape, 'r': keepEscape, 't': keepEscape, 'v': keepEscape,
	'p': keepEscape, 'P': keepEscape,
	's': (*translator).space,
	'S': (*translator).notSpace,
	'u': (*translator).unicodeEscape,
	'x': (*translator).hexEscape,
	'0': (*translator).nulEscape,
	'b': (*translator).backspace,
}

// escape translates the escape that begins at the backslash at t.i.
func (t *translator) escape() error {
	if t.i+1 >= len(t.p) {
		return errUnsupported
	}
	t.i++
	e := t.p[t.i]
	switch {
	case e >= utf8.RuneSelf:
		r, n := utf8.DecodeRuneInString(t.p[t.i:])
		t.sb.WriteString(regexpQuoteRune(r))
		t.i += n - 1
		return nil
	case escapes[e] != nil:
		return escapes[e](t, e)
	case e >= 'a' && e <= 'z' || e >= 'A' && e <= 'Z' || e >= '0' && e <= '9':
		return errUnsupported
	}
	return keepEscape(t, e)
}

// keepEscape writes an escape that means the same in Go's syntax.
func keepEscape(t *translator, e byte) error {
	t.sb.WriteByte('\\')
	t.sb.WriteByte(e)
	return nil
}

// space translates \s, ECMA-262's white space and line terminators.
func (t *translator) space(byte) error {
	if t.inClass {
		t.sb.WriteString(ecmaSpace)
	} else {
		t.sb.WriteString("[" + ecmaSpace + "]")
	}
	return nil
}

// notSpace translates \S outside a class (inside one, Go has no way to say it).
func (t *translator) notSpace(byte) error {
	if t.inClass {
		return errUnsupported
	}
	t.sb.WriteString("[^" + ecmaSpace + "]")
	return nil
}

// unicodeEscape translates \uXXXX and \u{X...}.
func (t *translator) unicodeEscape(byte) error {
	p, i := t.p, t.i
	switch {
	case i+4 < len(p) && isHex4(p[i+1:i+5]):
		t.sb.WriteString(`\x{` + p[i+1:i+5] + `}`)
		t.i += 4
	case i+1 < len(p) && p[i+1] == '{':
		j := strings.IndexByte(p[i:], '}')
		if j < 0 {
			return errUnsupported
		}
		t.sb.WriteString(`\x` + p[i+1:i+j+1])
		t.i += j
	default:
		return errUnsupported
	}
	return nil
}

// hexEscape translates \xXX.
func (t *translator) hexEscape(byte) error {
	p, i := t.p, t.i
	if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
		return errUnsupported
	}
	t.sb.WriteString(`\x` + p[i+1:i+3])
	t.i += 2
	return nil
}

// nulEscape translates \0, the NUL character when no digit follows (an octal escape or a
// backreference otherwise, unsupported).
func (t *translator) nulEscape(byte) error {
	if t.i+1 < len(t.p) && t.p[t.i+1] >= '0' && t.p[t.i+1] <= '9' {
		return errUnsupported
	}
	t.sb.WriteString(`\x{0}`)
	return nil
}

// backspace translates \b in a class, the backspace; outside one it is a word boundary,
// unsupported.
func (t *translator) backspace(byte) error {
	if !t.inClass {
		return errUnsupported
	}
	t.sb.WriteString(`\x{8}`)
	return nil
}

// classByte writes a byte inside a class: a ']' closes it, a '[' is a literal bracket.
func (t *translator) classByte(c byte) {
	switch c {
	case ']':
		t.inClass = false
	case '[':
		t.sb.WriteString(`\[`)
		return
	}
	t.sb.WriteByte(c)
}

// openClass opens a class at the '[' at t.i, with its '^'. An empty class ([] matches
// nothing, [^] anything, in ECMA-262; Go reads the ']' as a member) is unsupported.
func (t *translator) openClass() error {
	p := t.p
	if strings.HasPrefix(p[t.i:], "[]") || strings.HasPrefix(p[t.i:], "[^]") {
		return errUnsupported
	}
	t.inClass = true
	t.sb.WriteByte('[')
	if t.i+1 < len(p) && p[t.i+1] == '^' {
		t.sb.WriteByte('^')
		t.i++
	}
	if t.i+1 < len(p) && p[t.i+1] == ']' {
		return errUnsupported
	}
	return nil
}

// openGroup opens a group at the '(' at t.i: a capturing group, (?: or a named group
// (?<name>; lookaround and the other (? forms are unsupported.
func (t *translator) openGroup() error {
	rest := t.p[t.i:]
	if strings.HasPrefix(rest, "(?") {
		switch {
		case strings.HasPrefix(rest, "(?:"):
		case strings.HasPrefix(rest, "(?<") && !strings.HasPrefix(rest, "(?<=") && !strings.HasPrefix(rest, "(?<!"):
		default:
			return errUnsupported
		}
	}
	t.sb.WriteByte('(')
	return nil
}

func regexpQuoteRune(r rune) string {
	return `\x{` + strconv.FormatInt(int64(r), 16) + `}`
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

// Compile builds the automaton of an ECMA-262 pattern; the error is errUnsupported for a
// pattern outside the supported subset or too large.
func Compile(p string) (*Automaton, error) {
	if schema.CheckPatternLimits(p) != nil {
		return nil, errUnsupported
	}
	gsrc, err := translate(p)
	if err != nil {
		return nil, err
	}
	re, err := syntax.Parse(gsrc, syntax.Perl)
	if err != nil {
		return nil, errUnsupported
	}
	re = re.Simplify()
	a := &Automaton{id: automatonIDs.Add(1), src: p, index: map[string]int{}, trans: map[transKey]int{}}
	// The search semantics: any prefix, the pattern, any suffix.
	loop := a.add(nstate{op: opChar, ranges: []rune{0, unicode.MaxRune}})
	pre := a.add(nstate{op: opSplit})
	a.states[loop].out = pre
	body, ends, err := a.build(re)
	if err != nil {
		return nil, err
	}
	a.states[pre].out, a.states[pre].out1 = body, loop
	match := a.add(nstate{op: opMatch})
	for _, e := range ends {
		a.patch(e, match)
	}
	a.start = pre
	if len(a.states) > maxNFAStates {
		return nil, errUnsupported
	}
	seen := map[rune]bool{}
	for _, st := range a.states {
		if st.op != opChar {
			continue
		}
		for i := 0; i < len(st.ranges); i += 2 {
			for _, b := range []rune{st.ranges[i], st.ranges[i+1] + 1} {
				if !seen[b] {
					seen[b] = true
					a.cuts = append(a.cuts, b)
				}
			}
		}
	}
	slices.Sort(a.cuts)
	a.dfaStart()
	return a, nil
}

// buildFolded builds a literal or a class that folds case: each rune with every rune of
// its case orbit (unicode.SimpleFold).
func (a *Automaton) buildFolded(re *syntax.Regexp) (int, []hole, error) {
	fold := func(ranges []rune) ([]rune, error) {
		var rs []rune
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i+1]-ranges[i] > 256 {
				return nil, errUnsupported
			}
			for r := ranges[i]; r <= ranges[i+1]; r++ {
				rs = append(rs, r)
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					rs = append(rs, f)
				}
			}
		}
		slices.Sort(rs)
		var out []rune
		for _, r := range slices.Compact(rs) {
			if n := len(out); n > 0 && out[n-1]+1 == r {
				out[n-1] = r
				continue
			}
			out = append(out, r, r)
		}
		return out, nil
	}
	if re.Op == syntax.OpCharClass {
		ranges, err := fold(re.Rune)
		if err != nil {
			return 0, nil, err
		}
		s := a.add(nstate{op: opChar, ranges: ranges, out: -1})
		return s, []hole{{s, false}}, nil
	}
	if len(re.Rune) == 0 {
		s := a.add(nstate{op: opSplit, out: -1, out1: -1})
		return s, []hole{{s, false}, {s, true}}, nil
	}
	first := -1
	var prev []hole
	for _, r := range re.Rune {
		ranges, err := fold([]rune{r, r})
		if err != nil {
			return 0, nil, err
		}
		s := a.add(nstate{op: opChar, ranges: ranges, out: -1})
		if first < 0 {
			first = s
		}
		for _, h := range prev {
			a.patch(h, s)
		}
		prev = []hole{{s, false}}
	}
	return first, prev, nil
}

func (a *Automaton) add(s nstate) int {
	a.states = append(a.states, s)
	return len(a.states) - 1
}

// hole is an unpatched exit of a fragment: state index and which output (0 out, 1 out1).
type hole struct {
	st  int
	alt bool
}

func (a *Automaton) patch(h hole, to int) {
	if h.alt {
		a.states[h.st].out1 = to
	} else {
		a.states[h.st].out = to
	}
}

// build returns a fragment's entry and its unpatched exits.
func (a *Automaton) build(re *syntax.Regexp) (int, []hole, error) {
	if len(a.states) > maxNFAStates {
		return 0, nil, errUnsupported
	}
	if re.Flags&syntax.FoldCase != 0 && (re.Op == syntax.OpLiteral || re.Op == syntax.OpCharClass) {
		// Go's parser reads a class of one letter in both cases ([kK]) as a literal that
		// folds case: each rune stands for its case orbit
		return a.buildFolded(re)
	}
	switch re.Op {
	case syntax.OpNoMatch:
		s := a.add(nstate{op: opDead})
		return s, nil, nil
	case syntax.OpEmptyMatch:
		s := a.add(nstate{op: opSplit, out: -1, out1: -1})
		// an epsilon with a single exit: use out, and make out1 point to the same place
		return s, []hole{{s, false}, {s, true}}, nil
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			s := a.add(nstate{op: opSplit, out: -1, out1: -1})
			return s, []hole{{s, false}, {s, true}}, nil
		}
		first := -1
		var prev []hole
		for _, r := range re.Rune {
			s := a.add(nstate{op: opChar, ranges: []rune{r, r}, out: -1})
			if first < 0 {
				first = s
			}
			for _, h := range prev {
				a.patch(h, s)
			}
			prev = []hole{{s, false}}
		}
		return first, prev, nil
	case syntax.OpCharClass:
		s := a.add(nstate{op: opChar, ranges: append([]rune(nil), re.Rune...), out: -1})
		return s, []hole{{s, false}}, nil
	case syntax.OpAnyCharNotNL:
		// ECMA-262: "." matches anything but the line terminators LF, CR, U+2028, U+2029.
		s := a.add(nstate{op: opChar, ranges: []rune{0, 9, 11, 12, 14, 0x2027, 0x202a, unicode.MaxRune}, out: -1})
		return s, []hole{{s, false}}, nil
	case syntax.OpAnyChar:
		s := a.add(nstate{op: opChar, ranges: []rune{0, unicode.MaxRune}, out: -1})
		return s, []hole{{s, false}}, nil
	case syntax.OpBeginText:
		s := a.add(nstate{op: opBegin, out: -1})
		return s, []hole{{s, false}}, nil
	case syntax.OpEndText:
		s := a.add(nstate{op: opEnd, out: -1})
		return s, []hole{{s, false}}, nil
	case syntax.OpCapture:
		return a.build(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		in, outs, err := a.build(re.Sub[0])
		if err != nil {
			return 0, nil, err
		}
		sp := a.add(nstate{op: opSplit, out: in, out1: -1})
		switch re.Op {
		case syntax.OpStar:
			for _, h := range outs {
				a.patch(h, sp)
			}
			return sp, []hole{{sp, true}}, nil
		case syntax.OpPlus:
			for _, h := range outs {
				a.patch(h, sp)
			}
			return in, []hole{{sp, true}}, nil
		}
		return sp, append(outs, hole{sp, true}), nil
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			s := a.add(nstate{op: opSplit, out: -1, out1: -1})
			return s, []hole{{s, false}, {s, true}}, nil
		}
		first, prev := -1, []hole(nil)
		for _, sub := range re.Sub {
			in, outs, err := a.build(sub)
			if err != nil {
				return 0, nil, err
			}
			if first < 0 {
				first = in
			}
			for _, h := range prev {
				a.patch(h, in)
			}
			prev = outs
		}
		return first, prev, nil
	case syntax.OpAlternate:
		var holes []hole
		entry := -1
		var lastSplit int
		for i, sub := range re.Sub {
			in, outs, err := a.build(sub)
			if err != nil {
				return 0, nil, err
			}
			holes = append(holes, outs...)
			if i == len(re.Sub)-1 {
				if entry < 0 {
					entry = in
				} else {
					a.states[lastSplit].out1 = in
				}
				break
			}
			sp := a.add(nstate{op: opSplit, out: in, out1: -1})
			if entry < 0 {
				entry = sp
			} else {
				a.states[lastSplit].out1 = sp
			}
			lastSplit = sp
		}
		return entry, holes, nil
	}
	return 0, nil, errUnsupported
}

// closure adds the states reachable without consuming input.
func (a *Automaton) closure(set []int, atStart, atEnd bool) []int {
	if len(a.seen) < len(a.states) {
		a.seen = make([]bool, len(a.states))
	}
	seen := a.seen
	var out []int
	stack := append(a.stack[:0], set...)
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s < 0 || seen[s] {
			continue
		}
		seen[s] = true
		st := &a.states[s]
		switch st.op {
		case opSplit:
			stack = append(stack, st.out, st.out1)
			continue
		case opBegin:
			if atStart {
				stack = append(stack, st.out)
			}
			continue
		case opEnd:
			if atEnd {
				stack = append(stack, st.out)
				continue
			}
			// kept as a pending assertion, resolved when the input ends
		case opDead:
			continue
		}
		out = append(out, s)
	}
	a.stack = stack
	// unmark what was seen: the states pushed are out, and those passed through (splits,
	// assertions) are found again by walking from set
	a.unsee(set)
	sort.Ints(out)
	return out
}

// unsee clears the marks closure left, walking the same edges from set.
func (a *Automaton) unsee(set []int) {
	stack := append(a.stack[:0], set...)
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s < 0 || !a.seen[s] {
			continue
		}
		a.seen[s] = false
		st := &a.states[s]
		switch st.op {
		case opSplit:
			stack = append(stack, st.out, st.out1)
		case opBegin, opEnd:
			stack = append(stack, st.out)
		}
	}
	a.stack = stack
}

func (a *Automaton) intern(states []int, atStart bool) int {
	kb := a.keyBuf[:0]
	if atStart {
		kb = append(kb, '^')
	}
	for _, s := range states {
		kb = binary.AppendUvarint(kb, uint64(s))
	}
	a.keyBuf = kb
	if id, ok := a.index[string(kb)]; ok {
		return id
	}
	k := string(kb)
	d := dfaSet{states: states, atStart: atStart}
	// Accepting when the match state is reachable with the end assertions allowed.
	for _, s := range a.closureEnd(states, atStart) {
		if a.states[s].op == opMatch {
			d.accept = true
		}
	}
	for _, s := range states {
		if a.states[s].op == opMatch {
			d.all = true // the pattern matched a prefix: every extension matches too
		}
	}
	d.dead = len(states) == 0
	a.sets = append(a.sets, d)
	a.index[k] = len(a.sets) - 1
	return len(a.sets) - 1
}

// closureEnd re-closes a set with the end-of-text assertion allowed.
func (a *Automaton) closureEnd(states []int, atStart bool) []int {
	return a.closure(states, atStart, true)
}

func (a *Automaton) dfaStart() {
	a.intern(a.closure([]int{a.start}, true, false), true)
}

// maxDFASets bounds the DFA states an automaton keeps between questions: one that has
// more at the end of a question forgets its DFA (the next rebuilds what it visits), so a
// long-running process that shares automata does not grow without bound.
const maxDFASets = 1 << 12

// resetDFA forgets the DFA built so far.
func (a *Automaton) resetDFA() {
	a.sets, a.dense = nil, nil
	a.index, a.trans = map[string]int{}, map[transKey]int{}
	a.dfaStart()
}

// lockAll locks the distinct automata of autos in the order of their ids (so that
// questions over the same automata cannot deadlock) and returns what unlocks them (and
// makes those whose DFA grew past maxDFASets forget it).
func lockAll(autos []*Automaton) (unlock func()) {
	locked := slices.Clone(autos)
	slices.SortFunc(locked, func(x, y *Automaton) int { return cmp.Compare(x.id, y.id) })
	locked = slices.Compact(locked)
	for _, a := range locked {
		a.mu.Lock()
	}
	return func() {
		for _, a := range locked {
			if len(a.sets) > maxDFASets {
				a.resetDFA()
			}
			a.mu.Unlock()
		}
	}
}

// maxDenseClasses bounds the classes an automaton keeps its transitions for in dense
// rows; one with more (a Unicode category) keeps them in a map.
const maxDenseClasses = 256

// class returns the number of the class r falls in: how many cuts are at or below r.
func (a *Automaton) class(r rune) int {
	lo, hi := 0, len(a.cuts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a.cuts[m] <= r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// step returns the DFA state after reading r.
func (a *Automaton) step(set int, r rune) int {
	c := a.class(r)
	if len(a.cuts) < maxDenseClasses {
		return a.stepClass(set, c)
	}
	k := transKey{set, rune(c)}
	if n, ok := a.trans[k]; ok {
		return n
	}
	n := a.move(set, r)
	a.trans[k] = n
	return n
}

// stepClass returns the DFA state after reading a rune of class c; it builds the state's
// whole row of transitions at its first step (the search reads every class of each state
// it visits). Only for automata with dense rows.
func (a *Automaton) stepClass(set, c int) int {
	for len(a.dense) <= set {
		a.dense = append(a.dense, nil)
	}
	if a.dense[set] == nil {
		a.dense[set] = a.row(set)
	}
	return int(a.dense[set][c] - 1)
}

// row computes the transitions of a DFA state for every class at once: each char state's
// ranges are cut into classes, so one pass over the set's states gives every class its
// successors (where move would pass over them once per class).
func (a *Automaton) row(set int) []int32 {
	nClasses := len(a.cuts) + 1
	row := make([]int32, nClasses)
	d := a.sets[set]
	if d.all {
		n := int32(a.intern(d.states, false) + 1) // a match is behind us: stay accepting
		for c := range row {
			row[c] = n
		}
		return row
	}
	// count the successors of each class, then place them (a counting sort by class)
	start := make([]int32, nClasses+1)
	each := func(visit func(c, out int)) {
		for _, s := range d.states {
			st := &a.states[s]
			if st.op != opChar {
				continue
			}
			for i := 0; i < len(st.ranges); i += 2 {
				for c, hi := a.class(st.ranges[i]), a.class(st.ranges[i+1]); c <= hi; c++ {
					visit(c, st.out)
				}
			}
		}
	}
	each(func(c, _ int) { start[c+1]++ })
	for c := 1; c <= nClasses; c++ {
		start[c] += start[c-1]
	}
	succ := make([]int, start[nClasses])
	fill := slices.Clone(start[:nClasses])
	each(func(c, out int) {
		succ[fill[c]] = out
		fill[c]++
	})
	for c := range row {
		next := succ[start[c]:start[c+1]]
		if c > 0 && slices.Equal(next, succ[start[c-1]:start[c]]) {
			row[c] = row[c-1] // the same successors as the class before (often none)
			continue
		}
		row[c] = int32(a.intern(a.closure(next, false, false), false) + 1)
	}
	return row
}

// move computes the DFA state after reading r (step keeps the answer).
func (a *Automaton) move(set int, r rune) int {
	d := a.sets[set]
	var next []int
	if d.all {
		next = d.states // a match is behind us: stay accepting
	} else {
		for _, s := range d.states {
			st := &a.states[s]
			if st.op != opChar {
				continue
			}
			for i := 0; i < len(st.ranges); i += 2 {
				if r >= st.ranges[i] && r <= st.ranges[i+1] {
					next = append(next, st.out)
					break
				}
			}
		}
		next = a.closure(next, false, false)
	}
	return a.intern(next, false)
}

// Matches runs the automaton on a string (used in tests and to double-check witnesses).
func (a *Automaton) Matches(s string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := 0
	for _, r := range s {
		st = a.step(st, r)
	}
	return a.sets[st].accept || a.sets[st].all
}

// ---- questions over several automata ----

// Query asks for a string matching every automaton in Must, none in MustNot, with a
// length (in code points) in [MinLen, MaxLen] (MaxLen < 0: unbounded), and none of Avoid.
type Query struct {
	Must, MustNot  []*Automaton
	MinLen, MaxLen int
	Avoid          map[string]bool // strings not wanted (already known)
}

// solveLimit bounds the product states one question may visit.
const solveLimit = 20000

// Solve returns the shortest string answering q. exhaustive is true when the answer is
// certain: no string exists when found is false.
//
// A product state keeps only the automata that can still change the answer: a must-not
// automaton in its sink (the first one it reaches in this question: a state that accepts
// nothing and that every rune leads back to, as an anchored pattern's is once a prefix
// has ruled it out) is left out, so that a question with many must-not patterns, most of
// which a short prefix rules out (a name against the other side's hundred
// patternProperties), costs what its live automata do, not nodes times all automata (150
// patterns on each side once took 5 s of CPU and 260 MB; 400, more than a minute). The
// states, their order and the answers are those of the full product: a left-out
// automaton's state is known, so two states are equal exactly when their full products
// are.
func Solve(q Query) (witness string, found, exhaustive bool) {
	autos := append(append([]*Automaton(nil), q.Must...), q.MustNot...)
	defer lockAll(autos)()
	reps := alphabet(autos)
	classes := repClasses(autos, reps)
	width, nMust := len(autos), len(q.Must)

	// The product states visited, breadth first: node i's automata and their states are
	// the pairs arena[off:off+2*n] (automaton k, state s), in the order of k. A state is
	// known by those pairs and its length clamped to minLen: packed in a number when they
	// fit (one or two automata, as most questions have, then none is left out), else
	// encoded as varints (a lookup with string(key) does not allocate). first reports
	// whether a state is new, and marks it.
	type node struct {
		length int
		parent int
		r      rune
		off, n int
	}
	// sinks[k] is must-not automaton k's sink once found (-1 before); leftOut reports
	// whether automaton k in state s is left out of a product state: it is in that sink.
	sinks := make([]int, width)
	for k := range sinks {
		sinks[k] = -1
	}
	leftOut := func(k, s int) bool {
		if width <= 2 || k < nMust {
			return false
		}
		if sinks[k] < 0 && autos[k].isSink(s) {
			sinks[k] = s
		}
		return s == sinks[k]
	}
	var keyBuf []byte
	visited := map[string]struct{}{}
	packed := map[uint64]struct{}{}
	full := make([]int, 2)
	first := func(pairs []int, length int) bool {
		l := min(length, q.MinLen)
		if width <= 2 {
			full = full[:0]
			for j := 1; j < len(pairs); j += 2 {
				full = append(full, pairs[j])
			}
			if k, ok := packState(full, l); ok {
				if _, seen := packed[k]; seen {
					return false
				}
				packed[k] = struct{}{}
				return true
			}
		}
		keyBuf = keyBuf[:0]
		for _, v := range pairs {
			keyBuf = binary.AppendVarint(keyBuf, int64(v))
		}
		keyBuf = binary.AppendVarint(keyBuf, int64(l))
		if _, seen := visited[string(keyBuf)]; seen {
			return false
		}
		visited[string(keyBuf)] = struct{}{}
		return true
	}
	arena := make([]int, 0, 2*width)
	for k := range autos {
		arena = append(arena, k, 0)
	}
	nodes := []node{{parent: -1, n: width}}
	first(arena, 0)
	next := make([]int, 0, 2*width)
	exhaustive = true
	for i := 0; i < len(nodes); i++ {
		n := nodes[i]
		pairs := arena[n.off : n.off+2*n.n]
		if n.length >= q.MinLen && (q.MaxLen < 0 || n.length <= q.MaxLen) && satisfies(autos, nMust, pairs) {
			var rs []rune
			for k := i; k > 0; k = nodes[k].parent {
				rs = append(rs, nodes[k].r)
			}
			for l, r := 0, len(rs)-1; l < r; l, r = l+1, r-1 {
				rs[l], rs[r] = rs[r], rs[l]
			}
			w := string(rs)
			if !q.Avoid[w] {
				return w, true, true
			}
		}
		if q.MaxLen >= 0 && n.length >= q.MaxLen {
			continue
		}
		if len(nodes) > solveLimit {
			exhaustive = false
			break
		}
		// Prune: a must-automaton that is dead can never accept, a must-not automaton
		// that has matched will always match.
		dead := false
		for j := 0; j < len(pairs); j += 2 {
			k := pairs[j]
			d := autos[k].sets[pairs[j+1]]
			if (k < nMust && d.dead) || (k >= nMust && d.all) {
				dead = true
			}
		}
		if dead {
			continue
		}
		for j, r := range reps {
			next = next[:0]
			for p := 0; p < len(pairs); p += 2 {
				// (a left-out automaton stays in its sink: it is not stepped)
				k, a := pairs[p], autos[pairs[p]]
				var s int
				if c := classes[k*len(reps)+j]; c >= 0 {
					s = a.stepClass(pairs[p+1], c)
				} else {
					s = a.step(pairs[p+1], r)
				}
				if !leftOut(k, s) {
					next = append(next, k, s)
				}
			}
			if !first(next, n.length+1) {
				continue
			}
			off := len(arena)
			arena = append(arena, next...)
			pairs = arena[n.off : n.off+2*n.n] // arena may have moved
			nodes = append(nodes, node{length: n.length + 1, parent: i, r: r, off: off, n: len(next) / 2})
		}
	}
	if len(q.Avoid) > 0 {
		exhaustive = false
	}
	return "", false, exhaustive
}

// alphabet returns the classes of runes of autos, one representative each: the
// intervals between all their range boundaries, readable representatives first.
func alphabet(autos []*Automaton) []rune {
	var cuts []rune
	seen := map[rune]bool{}
	for _, a := range autos {
		for _, b := range a.cuts {
			if !seen[b] {
				seen[b] = true
				cuts = append(cuts, b)
			}
		}
	}
	for _, b := range []rune{0, unicode.MaxRune + 1} {
		if !seen[b] {
			cuts = append(cuts, b)
		}
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i] < cuts[j] })
	var reps []rune
	for i := 0; i+1 < len(cuts); i++ {
		lo, hi := cuts[i], cuts[i+1]-1
		if lo > hi {
			continue
		}
		reps = append(reps, representative(lo, hi))
	}
	sort.Slice(reps, func(i, j int) bool { return repRank(reps[i]) < repRank(reps[j]) })
	return reps
}

// repClasses returns the class of each representative in each automaton with dense rows
// (at k*len(reps)+j for automaton k and representative j), -1 in the others.
func repClasses(autos []*Automaton, reps []rune) []int {
	classes := make([]int, len(autos)*len(reps))
	for k, a := range autos {
		for j, r := range reps {
			classes[k*len(reps)+j] = -1
			if len(a.cuts) < maxDenseClasses {
				classes[k*len(reps)+j] = a.class(r)
			}
		}
	}
	return classes
}

// packState packs a product state of at most two automata (DFA states below 2^24) and a
// clamped length below 2^16 in one number; ok is false when it does not fit.
func packState(states []int, length int) (k uint64, ok bool) {
	if len(states) > 2 || length < 0 || length >= 1<<16 {
		return 0, false
	}
	k = uint64(length)
	for j, s := range states {
		if s < 0 || s >= 1<<24 {
			return 0, false
		}
		k |= uint64(s) << (16 + 24*j)
	}
	return k, true
}

// isSink reports whether DFA state s accepts nothing, now or later, because every rune
// leads back to it; only automata with dense rows are asked (the others say no).
func (a *Automaton) isSink(s int) bool {
	d := &a.sets[s]
	if d.sink == 0 {
		d.sink = 2
		if !d.accept && !d.all && len(a.cuts) < maxDenseClasses {
			a.stepClass(s, 0) // builds the row
			d = &a.sets[s]    // the row may have added states
			d.sink = 1
			for c, n := range a.dense[s] {
				lo, hi := rune(0), rune(unicode.MaxRune)
				if c > 0 {
					lo = a.cuts[c-1]
				}
				if c < len(a.cuts) {
					hi = a.cuts[c] - 1
				}
				if lo <= hi && int(n)-1 != s { // (a class that holds no rune does not count)
					d.sink = 2
					break
				}
			}
		}
	}
	return d.sink == 1
}

// satisfies reports whether a product state (pairs of automaton and state, every must
// automaton among them; a must-not automaton left out cannot match) accepts.
func satisfies(autos []*Automaton, nMust int, pairs []int) bool {
	for j := 0; j < len(pairs); j += 2 {
		k := pairs[j]
		d := autos[k].sets[pairs[j+1]]
		acc := d.accept || d.all
		if (k < nMust) != acc {
			return false
		}
	}
	return true
}

// representative picks a readable code point from [lo, hi].
func representative(lo, hi rune) rune {
	for _, r := range "aeiostnrlx0123456789ABCZ-_. " {
		if r >= lo && r <= hi {
			return r
		}
	}
	for r := lo; r <= hi && r < lo+256; r++ {
		if r >= 0x21 && r < 0x7f {
			return r
		}
	}
	if lo >= 0xd800 && hi <= 0xdfff {
		return lo // surrogates cannot appear in Go strings; the witness is re-checked anyway
	}
	if lo < 0x20 && hi >= 0xa1 {
		return 0xa1
	}
	return lo
}

// repRank orders representatives: letters and digits first, control characters last.
func repRank(r rune) int {
	switch {
	case r >= 'a' && r <= 'z':
		return 0
	case r >= '0' && r <= '9':
		return 1
	case r >= 'A' && r <= 'Z':
		return 2
	case r > 0x20 && r < 0x7f:
		return 3
	case r == ' ':
		return 4
	case r >= 0xa0 && unicode.IsPrint(r):
		return 5
	}
	return 6
}

// ---- pattern cache ----

// Cache is one comparison's view of the automata, by source (taken from the automata
// shared by the process), and the answers it had from Solve. Its zero value is ready; it is
// not for concurrent use.
type Cache struct {
	m map[string]*Automaton
	e map[string]bool
	// solved memoizes Solve: a comparison asks the same question of the same patterns
	// many times (the example search makes the strings of one merged schema for each
	// schema it is compared with), and each answer costs a product automaton.
	solved map[string]solved
}

type solved struct {
	witness           string
	found, exhaustive bool
}

// Solve is Solve(q), asked once per distinct question of this comparison; q's automata
// come from p.
func (p *Cache) Solve(q Query) (witness string, found, exhaustive bool) {
	var b strings.Builder
	for _, a := range q.Must {
		b.WriteString(a.src)
		b.WriteByte(0)
	}
	b.WriteByte(1)
	for _, a := range q.MustNot {
		b.WriteString(a.src)
		b.WriteByte(0)
	}
	b.WriteByte(1)
	b.WriteString(strconv.Itoa(q.MinLen))
	b.WriteByte(',')
	b.WriteString(strconv.Itoa(q.MaxLen))
	if len(q.Avoid) > 0 {
		avoid := make([]string, 0, len(q.Avoid))
		for w, on := range q.Avoid {
			if on {
				avoid = append(avoid, w)
			}
		}
		slices.Sort(avoid)
		for _, w := range avoid {
			b.WriteByte(1)
			b.WriteString(w)
		}
	}
	key := b.String()
	if r, ok := p.solved[key]; ok {
		return r.witness, r.found, r.exhaustive
	}
	witness, found, exhaustive = Solve(q)
	if p.solved == nil {
		p.solved = map[string]solved{}
	}
	p.solved[key] = solved{witness, found, exhaustive}
	return witness, found, exhaustive
}

// Get returns the automaton of the pattern src, nil when src is outside the supported
// subset (the prover then answers unknown and the search uses the real matcher).
func (p *Cache) Get(src string) *Automaton {
	if p.m == nil {
		p.m, p.e = map[string]*Automaton{}, map[string]bool{}
	}
	if a, ok := p.m[src]; ok {
		return a
	}
	if p.e[src] {
		return nil
	}
	a := sharedAutomaton(src)
	if a == nil {
		p.e[src] = true
		return nil
	}
	p.m[src] = a
	return a
}

// shared holds the automata of the patterns compared so far in this process, so that a
// pattern is compiled, and its DFA built, once and not once per comparison (a server or a
// benchmark compares many times); bounded by maxSharedAutomata.
var shared struct {
	sync.Mutex
	m   map[string]*Automaton
	bad map[string]bool // the patterns outside the supported subset
}

// maxSharedAutomata bounds shared: when it is full, it starts again empty.
const maxSharedAutomata = 256

var automatonIDs atomic.Uint64

// sharedAutomaton returns the automaton of the pattern src from shared, compiling it the
// first time; nil when src is outside the supported subset.
func sharedAutomaton(src string) *Automaton {
	shared.Lock()
	a, bad := shared.m[src], shared.bad[src]
	shared.Unlock()
	if a != nil || bad {
		return a
	}
	a, err := Compile(src) // outside the lock: other comparisons go on
	shared.Lock()
	defer shared.Unlock()
	if b := shared.m[src]; b != nil {
		return b // compiled meanwhile by another comparison
	}
	if len(shared.m)+len(shared.bad) >= maxSharedAutomata || shared.m == nil {
		shared.m, shared.bad = map[string]*Automaton{}, map[string]bool{}
	}
	if err != nil {
		shared.bad[src] = true
		return nil
	}
	shared.m[src] = a
	return a
}
