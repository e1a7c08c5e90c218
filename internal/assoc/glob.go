package assoc

import (
	"fmt"
	"path"
	"strings"
)

// The glob syntax of fileMatch patterns (SchemaStore's catalog, VS Code's json.schemas,
// yaml-language-server's yaml.schemas) and of jstk.json's "schemas" map: "*" any run of
// characters but "/", "?" one character, "[abc]" and "[!a-z]" a class, "{a,b}" either
// (expanded when compiled), "!(a|b)" anything but those (the extglob of SchemaStore's
// GitHub issue forms), and "**" as a whole segment any number of directories ("**" inside
// a segment is "*"). Matching is case-sensitive and a "*" matches a leading dot.

// maxPattern bounds a pattern's length, and maxTokens the tokens of one segment, so that
// matching is bounded by what the pattern may hold, not by the input.
const (
	maxPattern   = 1024
	maxTokens    = 64
	maxAlternate = 64
)

// Glob is one compiled pattern.
type Glob struct {
	// Text is the pattern as written.
	Text string
	// alts are its brace expansions, each a list of segments.
	alts [][]segment
	// literal counts the characters that are not wildcards, the measure of specificity.
	literal int
	// path is true when the pattern names directories (it holds a "/" besides a leading
	// "**/"), which is more specific than a bare file name.
	path bool
}

// segment is one path segment of a pattern: "**" (any number of segments) or tokens.
type segment struct {
	any    bool // "**"
	tokens []token
}

type tokenKind uint8

const (
	tLit tokenKind = iota
	tStar
	tOne
	tClass
	tNot // !(alts)
)

type token struct {
	kind   tokenKind
	lit    string
	class  []classRange
	negate bool
	not    [][]token // the alternatives of !(...), each a list of tokens
}

type classRange struct{ lo, hi rune }

// Anchor says where a pattern is matched.
type Anchor uint8

const (
	// Anywhere matches a pattern at any depth: "x.json" and ".vscode/x.json" match at the
	// end of any path (as if "**/" came first); a pattern starting with "/" is anchored
	// at the root. SchemaStore's fileMatch patterns are read so.
	Anywhere Anchor = iota
	// Rooted anchors a pattern that holds a "/" at the root ("schemas/*.json" matches only
	// there), while a bare name ("*.yaml") still matches at any depth: jstk.json's globs,
	// relative to its folder.
	Rooted
)

// CompileGlob compiles a pattern. An error says what is wrong with it.
func CompileGlob(pattern string, anchor Anchor) (*Glob, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	if len(pattern) > maxPattern {
		return nil, fmt.Errorf("pattern longer than %d characters", maxPattern)
	}
	texts, err := expandBraces(pattern)
	if err != nil {
		return nil, err
	}
	g := &Glob{Text: pattern}
	for i, t := range texts {
		anchored := strings.HasPrefix(t, "/")
		t = strings.TrimPrefix(strings.TrimPrefix(t, "./"), "/")
		if t == "" {
			return nil, fmt.Errorf("pattern names no file")
		}
		slash := strings.Contains(strings.TrimPrefix(t, "**/"), "/")
		if !anchored && !strings.HasPrefix(t, "**/") && (anchor == Anywhere || !slash) {
			t = "**/" + t
		}
		segs, lit, err := compileSegments(t)
		if err != nil {
			return nil, err
		}
		if i == 0 || lit < g.literal {
			g.literal = lit // the least specific expansion speaks for the pattern
		}
		g.path = g.path || slash || anchored
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

// expandBraces expands "{a,b}" alternations (not nested) into the patterns they stand for.
func expandBraces(p string) ([]string, error) {
	out := []string{""}
	for len(p) > 0 {
		i := strings.IndexAny(p, "{}")
		if i < 0 {
			for k := range out {
				out[k] += p
			}
			break
		}
		if p[i] == '}' {
			return nil, fmt.Errorf("\"}\" without \"{\"")
		}
		j := strings.IndexByte(p[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("\"{\" is not closed")
		}
		inner := p[i+1 : i+j]
		if strings.Contains(inner, "{") {
			return nil, fmt.Errorf("nested \"{\" is not supported")
		}
		choices := strings.Split(inner, ",")
		var next []string
		for _, o := range out {
			for _, c := range choices {
				next = append(next, o+p[:i]+c)
			}
		}
		if len(next) > maxAlternate {
			return nil, fmt.Errorf("more than %d alternatives", maxAlternate)
		}
		out = next
		p = p[i+j+1:]
	}
	return out, nil
}

// compileSegments compiles a brace-free pattern into segments, with its literal count.
func compileSegments(p string) ([]segment, int, error) {
	var segs []segment
	lit := 0
	for _, s := range strings.Split(p, "/") {
		if s == "" {
			return nil, 0, fmt.Errorf("empty path segment (\"//\" or a trailing \"/\")")
		}
		if s == "**" {
			if len(segs) > 0 && segs[len(segs)-1].any {
				continue
			}
			segs = append(segs, segment{any: true})
			continue
		}
		s = strings.ReplaceAll(s, "**", "*")
		toks, n, err := compileTokens(s)
		if err != nil {
			return nil, 0, err
		}
		lit += n
		segs = append(segs, segment{tokens: toks})
	}
	return segs, lit, nil
}

// compileTokens compiles one segment.
func compileTokens(s string) ([]token, int, error) {
	var toks []token
	lit := 0
	addLit := func(c string) {
		lit += len(c)
		if n := len(toks); n > 0 && toks[n-1].kind == tLit {
			toks[n-1].lit += c
			return
		}
		toks = append(toks, token{kind: tLit, lit: c})
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '*':
			if n := len(toks); n == 0 || toks[n-1].kind != tStar {
				toks = append(toks, token{kind: tStar})
			}
		case '?':
			toks = append(toks, token{kind: tOne})
		case '[':
			t, n, err := compileClass(s[i:])
			if err != nil {
				return nil, 0, err
			}
			toks = append(toks, t)
			i += n - 1
		case '!', '@', '+':
			if i+1 < len(s) && s[i+1] == '(' {
				if c != '!' {
					return nil, 0, fmt.Errorf("%c(...) is not supported (only !(...))", c)
				}
				end := strings.IndexByte(s[i:], ')')
				if end < 0 {
					return nil, 0, fmt.Errorf("\"!(\" is not closed")
				}
				t := token{kind: tNot}
				for _, a := range strings.Split(s[i+2:i+end], "|") {
					if strings.ContainsAny(a, "()") {
						return nil, 0, fmt.Errorf("nested groups are not supported")
					}
					at, _, err := compileTokens(a)
					if err != nil {
						return nil, 0, err
					}
					t.not = append(t.not, at)
				}
				toks = append(toks, t)
				i += end
				continue
			}
			addLit(string(c))
		case '\\':
			if i+1 >= len(s) {
				return nil, 0, fmt.Errorf("trailing \"\\\"")
			}
			i++
			addLit(string(s[i]))
		case '(', ')', ']':
			if c == ']' {
				addLit("]")
				continue
			}
			return nil, 0, fmt.Errorf("%q outside a group", string(c))
		default:
			addLit(string(c))
		}
	}
	if len(toks) > maxTokens {
		return nil, 0, fmt.Errorf("more than %d wildcards and literals in one segment", maxTokens)
	}
	return toks, lit, nil
}

// compileClass compiles "[...]" at the start of s, returning the token and its length.
func compileClass(s string) (token, int, error) {
	t := token{kind: tClass}
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		t.negate = true
		i++
	}
	start := i
	for i < len(s) && (s[i] != ']' || i == start) {
		lo := rune(s[i])
		hi := lo
		if i+2 < len(s) && s[i+1] == '-' && s[i+2] != ']' {
			hi = rune(s[i+2])
			i += 2
		}
		if hi < lo {
			return t, 0, fmt.Errorf("range %c-%c is reversed", lo, hi)
		}
		t.class = append(t.class, classRange{lo, hi})
		i++
	}
	if i >= len(s) {
		return t, 0, fmt.Errorf("\"[\" is not closed")
	}
	return t, i + 1, nil
}

// Match reports whether a slash-separated relative path matches the pattern.
func (g *Glob) Match(name string) bool {
	name = path.Clean(name)
	parts := strings.Split(name, "/")
	for _, segs := range g.alts {
		if matchPath(segs, parts) {
			return true
		}
	}
	return false
}

// matchPath matches segments against path parts: a table of suffixes, filled from the
// end, so that "**" costs no recursion.
func matchPath(segs []segment, parts []string) bool {
	n, m := len(segs), len(parts)
	// next[j] is whether segs[i+1:] matches parts[j:]; cur is the same for segs[i:].
	next := make([]bool, m+1)
	cur := make([]bool, m+1)
	next[m] = true
	for i := n - 1; i >= 0; i-- {
		s := segs[i]
		cur[m] = s.any && next[m]
		for j := m - 1; j >= 0; j-- {
			if s.any {
				cur[j] = next[j] || cur[j+1]
			} else {
				cur[j] = next[j+1] && matchTokens(s.tokens, parts[j])
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

// matchTokens matches one segment's tokens against a name, by a table over the name's
// suffixes (bounded: tokens x length x length at most).
func matchTokens(toks []token, s string) bool {
	n, m := len(toks), len(s)
	next := make([]bool, m+1)
	cur := make([]bool, m+1)
	next[m] = true
	for i := n - 1; i >= 0; i-- {
		t := toks[i]
		for j := m; j >= 0; j-- {
			ok := false
			switch t.kind {
			case tLit:
				ok = strings.HasPrefix(s[j:], t.lit) && next[j+len(t.lit)]
			case tStar:
				ok = next[j] || (j < m && cur[j+1])
			case tOne:
				ok = j < m && next[j+1]
			case tClass:
				ok = j < m && t.inClass(rune(s[j])) && next[j+1]
			case tNot:
				for k := j; k <= m && !ok; k++ {
					if next[k] && !t.notMatches(s[j:k]) {
						ok = true
					}
				}
			}
			cur[j] = ok
		}
		next, cur = cur, next
	}
	return next[0]
}

func (t *token) inClass(r rune) bool {
	in := false
	for _, c := range t.class {
		if r >= c.lo && r <= c.hi {
			in = true
			break
		}
	}
	return in != t.negate
}

func (t *token) notMatches(s string) bool {
	for _, a := range t.not {
		if matchTokens(a, s) {
			return true
		}
	}
	return false
}

// literalSuffix is the literal text that ends every name the pattern's last segment
// matches, for each expansion ("" when a wildcard ends it); exact is true when the whole
// last segment is literal.
func literalSuffix(segs []segment) (suffix string, exact bool) {
	last := segs[len(segs)-1]
	if last.any || len(last.tokens) == 0 {
		return "", false
	}
	t := last.tokens[len(last.tokens)-1]
	if t.kind != tLit {
		return "", false
	}
	return t.lit, len(last.tokens) == 1
}
