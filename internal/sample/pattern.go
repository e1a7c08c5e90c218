package sample

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2/syntax"

	"github.com/jstk-dev/jstk/internal/schema"
)

// patternGen generates strings that contain a match of an ECMA-262 pattern, by walking the
// pattern's syntax tree (as parsed by regexp2, the engine jstk's validator uses for
// patterns RE2 cannot run): literals are copied, classes pick a member, quantifiers pick a
// count, alternatives pick a branch, backreferences repeat their group's text. A positive
// lookahead (?=X) at a position is honoured by generating a match of X and making the text
// that follows start with it; when X starts with an unbounded loop (".*\d"), only the part
// after the loop is required, so several lookaheads combine ("contains an upper-case letter
// and a digit"). Other zero-width assertions are left to the final check: every string is
// matched against the compiled pattern before it is used.
type patternGen struct {
	src           string
	root          *syntax.RegexNode
	re            schema.Regexp
	startAnchored bool
	endAnchored   bool
	sets          map[*syntax.CharSet][]rune
	// slow is set once a match ran out of its time (a pattern only the backtracking engine
	// runs, with nested quantifiers): the pattern is not matched again, since every try
	// would cost the whole time limit.
	slow bool
	// ctx is the run's (its cancellation, deadline and pattern budget bound each match);
	// stop hears of an error that ends the run. Both are set by the generator.
	ctx  context.Context
	stop func(error)
}

func newPatternGen(src string) (*patternGen, error) {
	re, err := schema.CompileRegexp(src, 2*time.Second)
	if err != nil {
		return nil, err
	}
	pg := &patternGen{src: src, re: re, sets: map[*syntax.CharSet][]rune{}, ctx: context.Background()}
	tree, err := syntax.Parse(src, syntax.ParseOptions{RegexOptions: syntax.ECMAScript | syntax.Unicode})
	if err != nil {
		// The validator accepted the pattern, so it compiled through RE2: generation falls
		// back to random text checked against the pattern.
		return pg, nil
	}
	pg.root = tree.Root
	pg.startAnchored, pg.endAnchored = anchors(tree.Root)
	return pg, nil
}

// anchors reports whether every match must start at the beginning of the string, and
// end at its end.
func anchors(n *syntax.RegexNode) (start, end bool) {
	for (n.T == syntax.NtCapture || n.T == syntax.NtGroup) && len(n.Children) == 1 {
		n = n.Children[0]
	}
	if n.T != syntax.NtConcatenate || len(n.Children) == 0 {
		return isStart(n), isEnd(n)
	}
	return isStart(n.Children[0]), isEnd(n.Children[len(n.Children)-1])
}

func isStart(n *syntax.RegexNode) bool { return n.T == syntax.NtBeginning || n.T == syntax.NtBol }
func isEnd(n *syntax.RegexNode) bool {
	return n.T == syntax.NtEnd || n.T == syntax.NtEndZ || n.T == syntax.NtEol
}

// matches reports whether s contains a match; false once a match has run out of time.
func (pg *patternGen) matches(s string) bool {
	if pg.slow {
		return false
	}
	ok, err := pg.re.MatchContext(pg.ctx, s)
	if err != nil {
		pg.slow = true
		if pg.stop != nil {
			pg.stop(err)
		}
	}
	return err == nil && ok
}

// Repetition modes: how far beyond its minimum a quantifier goes.
const (
	repNormal = iota
	repShort
	repLong
)

// rxState is the state of generating one string.
type rxState struct {
	pg      *patternGen
	r       *rand.Rand
	mode    int
	out     []rune
	caps    map[int]string
	pending []rune
	failed  bool
}

// generate returns a string made from the pattern's tree (not yet checked).
func (pg *patternGen) generate(r *rand.Rand, mode int) (string, bool) {
	if pg == nil || pg.root == nil {
		return "", false
	}
	st := &rxState{pg: pg, r: r, mode: mode, caps: map[int]string{}}
	st.node(pg.root)
	if st.failed {
		return "", false
	}
	// Whatever a lookahead still requires goes at the end.
	st.out = append(st.out, st.pending...)
	return string(st.out), true
}

// fit generates a string that matches and has between lo and hi characters (hi < 0:
// no limit), padding before or after the match when the pattern is not anchored there.
func (pg *patternGen) fit(r *rand.Rand, lo, hi int, tries int, accept func(string) bool) (string, bool) {
	modes := []int{repNormal, repShort, repLong, repNormal, repLong}
	for i := 0; i < tries && !pg.slow; i++ {
		mode := modes[i%len(modes)]
		s, ok := pg.generate(r, mode)
		if !ok {
			s = randomText(r, max(lo, 1))
		}
		if !pg.endAnchored && mode == repNormal && r.IntN(2) == 0 {
			s += randomText(r, 1+r.IntN(4)) // variety after an open end
		}
		n := utf8.RuneCountInString(s)
		if n < lo {
			pad := randomText(r, lo-n)
			switch {
			case !pg.endAnchored:
				s += pad
			case !pg.startAnchored:
				s = pad + s
			}
		}
		n = utf8.RuneCountInString(s)
		if n < lo || hi >= 0 && n > hi {
			continue
		}
		if pg.matches(s) && (accept == nil || accept(s)) {
			return s, true
		}
	}
	return "", false
}

const alnum = "abcdefghijklmnopqrstuvwxyz0123456789"

func randomText(r *rand.Rand, n int) string {
	var sb strings.Builder
	for range n {
		sb.WriteByte(alnum[r.IntN(26)])
	}
	return sb.String()
}

func (st *rxState) emit(c rune) {
	if len(st.pending) > 0 && st.pending[0] == c {
		st.pending = st.pending[1:]
	}
	st.out = append(st.out, c)
}

// loopCount picks a repetition count between m and n (n < 0 or MaxInt32: unbounded).
func (st *rxState) loopCount(m, n int) int {
	if n < 0 || n == math.MaxInt32 {
		n = math.MaxInt32
	}
	if m < 0 {
		m = 0
	}
	var extra int
	switch st.mode {
	case repShort:
		extra = 0
	case repLong:
		extra = st.r.IntN(12)
	default:
		extra = st.r.IntN(4)
		if m == 0 && n > 0 && extra == 0 && st.r.IntN(2) == 0 {
			extra = 1
		}
	}
	if len(st.out) > 4000 {
		extra = 0
	}
	if m > maxGenerated || len(st.out) > maxGenerated {
		st.failed = true // the pattern asks for more text than is sensible to make
		return 0
	}
	c := m + extra
	if c > n {
		c = n
	}
	return c
}

// setLoop emits count members of a set, first taking what a lookahead requires when the
// set allows it (and the loop may grow to take it).
func (st *rxState) setLoop(in func(rune) bool, pick func() rune, m, n int) {
	count := st.loopCount(m, n)
	if n < 0 {
		n = math.MaxInt32
	}
	// Absorb pending characters the set accepts.
	taken := 0
	for len(st.pending) > 0 && taken < n && in(st.pending[0]) {
		st.out = append(st.out, st.pending[0])
		st.pending = st.pending[1:]
		taken++
	}
	for i := taken; i < count; i++ {
		st.out = append(st.out, pick())
	}
}

func (st *rxState) node(n *syntax.RegexNode) {
	if st.failed {
		return
	}
	switch n.T {
	case syntax.NtCapture:
		start := len(st.out)
		for _, c := range n.Children {
			st.node(c)
		}
		st.caps[n.M] = string(st.out[start:])
	case syntax.NtGroup, syntax.NtAtomic, syntax.NtConcatenate:
		for _, c := range n.Children {
			st.node(c)
		}
	case syntax.NtAlternate:
		if len(n.Children) > 0 {
			st.node(n.Children[st.r.IntN(len(n.Children))])
		}
	case syntax.NtLoop, syntax.NtLazyloop:
		if len(n.Children) == 0 {
			return
		}
		count := st.loopCount(n.M, n.N)
		for range count {
			st.node(n.Children[0])
		}
	case syntax.NtOne:
		st.emit(n.Ch)
	case syntax.NtMulti:
		for _, c := range n.Str {
			st.emit(c)
		}
	case syntax.NtNotone:
		st.setLoop(func(c rune) bool { return c != n.Ch }, func() rune { return st.notOne(n.Ch) }, 1, 1)
	case syntax.NtSet:
		st.setLoop(n.Set.CharIn, func() rune { return st.pick(n.Set) }, 1, 1)
	case syntax.NtOneloop, syntax.NtOnelazy, syntax.NtOneloopatomic:
		st.setLoop(func(c rune) bool { return c == n.Ch }, func() rune { return n.Ch }, n.M, n.N)
	case syntax.NtNotoneloop, syntax.NtNotonelazy, syntax.NtNotoneloopatomic:
		st.setLoop(func(c rune) bool { return c != n.Ch }, func() rune { return st.notOne(n.Ch) }, n.M, n.N)
	case syntax.NtSetloop, syntax.NtSetlazy, syntax.NtSetloopatomic:
		st.setLoop(n.Set.CharIn, func() rune { return st.pick(n.Set) }, n.M, n.N)
	case syntax.NtRef:
		for _, c := range st.caps[n.M] {
			st.emit(c)
		}
	case syntax.NtPosLook:
		if n.Options&syntax.RightToLeft != 0 || len(n.Children) == 0 {
			return // lookbehind: left to the check
		}
		st.lookahead(n.Children[0])
	case syntax.NtNothing:
		st.failed = true
	case syntax.NtBackRefCond, syntax.NtExprCond:
		if len(n.Children) > 1 {
			st.node(n.Children[len(n.Children)-1])
		}
	case syntax.NtGrapheme:
		st.emit('a')
	}
	// Anchors, boundaries, negative lookaround and bookkeeping nodes emit nothing.
}

// lookahead makes the text that follows start with a match of body.
func (st *rxState) lookahead(body *syntax.RegexNode) {
	for (body.T == syntax.NtCapture || body.T == syntax.NtGroup) && len(body.Children) == 1 {
		body = body.Children[0]
	}
	sub := &rxState{pg: st.pg, r: st.r, mode: repShort, caps: st.caps}
	if body.T == syntax.NtConcatenate && len(body.Children) > 1 && isOpenLoop(body.Children[0]) {
		// "(?=.*X)": the text must contain X somewhere; require X next.
		for _, c := range body.Children[1:] {
			sub.node(c)
		}
	} else {
		sub.node(body)
	}
	if sub.failed {
		return
	}
	st.pending = append(st.pending, sub.out...)
}

func isOpenLoop(n *syntax.RegexNode) bool {
	switch n.T {
	case syntax.NtSetloop, syntax.NtSetlazy, syntax.NtSetloopatomic,
		syntax.NtNotoneloop, syntax.NtNotonelazy, syntax.NtNotoneloopatomic:
		return n.M == 0
	}
	return false
}

// Characters tried for classes, most readable first.
var (
	tier1 = []rune("abcdefghijklmnopqrstuvwxyz")
	tier2 = []rune("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
	tier3 = []rune(" -_.:/@+,;!#$%&*=?~()[]{}<>'\"|^`\\")
)

// members lists characters of a set, preferring readable ones; it is cached per set.
func (pg *patternGen) members(set *syntax.CharSet) []rune {
	if m, ok := pg.sets[set]; ok {
		return m
	}
	var out []rune
	for _, tier := range [][]rune{tier1, tier2} {
		for _, c := range tier {
			if set.CharIn(c) {
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 {
		for _, c := range tier3 {
			if set.CharIn(c) {
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 {
		out = scanSet(set.CharIn, 32)
	}
	pg.sets[set] = out
	return out
}

// scanSet finds up to limit characters of a set by scanning the code space.
func scanSet(in func(rune) bool, limit int) []rune {
	var out []rune
	ranges := [][2]rune{{0x20, 0x7e}, {0xa0, 0x24f}, {0x250, 0xd7ff}, {0xe000, 0xfffd}, {0x10000, 0x10ffff}, {0x09, 0x0d}, {0x00, 0x1f}}
	for _, rg := range ranges {
		for c := rg[0]; c <= rg[1]; c++ {
			if in(c) {
				out = append(out, c)
				if len(out) >= limit {
					return out
				}
			}
		}
	}
	return out
}

func (st *rxState) pick(set *syntax.CharSet) rune {
	m := st.pg.members(set)
	if len(m) == 0 {
		st.failed = true
		return 'a'
	}
	return m[st.r.IntN(len(m))]
}

func (st *rxState) notOne(ch rune) rune {
	for {
		c := rune(alnum[st.r.IntN(len(alnum))])
		if c != ch {
			return c
		}
	}
}
