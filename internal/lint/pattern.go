package lint

import (
	"fmt"
	"strings"
	"sync"
)

// letterEscapes says what the escapes that ECMA-262 does not have mean elsewhere.
var letterEscapes = sync.OnceValue(func() map[byte]string {
	return map[byte]string{
		'A': "the start of the text (Perl, Python, .NET); use ^",
		'Z': "the end of the text (Perl, Python, .NET); use $",
		'z': "the end of the text (Perl, .NET); use $",
		'h': "a horizontal space (Perl, PCRE); use [ \\t]",
		'H': "a non-horizontal-space (Perl, PCRE)",
		'e': "the escape character (Perl, PCRE); use \\x1B",
		'R': "a line break (Perl, PCRE)",
		'K': "\"keep\" (Perl, PCRE)",
		'G': "the end of the previous match (Perl, PCRE, .NET)",
		'Q': "a quoted section (Perl, PCRE)",
		'E': "the end of a quoted section (Perl, PCRE)",
		'a': "the bell character (Perl, PCRE); use \\x07",
		'l': "lower-case the next character (Perl)",
		'L': "lower-case until \\E (Perl)",
		'U': "upper-case until \\E (Perl)",
		'N': "a non-newline (Perl, PCRE)",
		'X': "an extended grapheme cluster (Perl, PCRE)",
		'i': "nothing in particular",
		'j': "nothing in particular",
		'g': "a back-reference (Perl, PCRE); use \\1 or \\k<name>",
		'm': "nothing in particular",
		'o': "nothing in particular",
		'q': "nothing in particular",
		'y': "nothing in particular",
		'C': "a single byte (Perl, PCRE)",
		'F': "fold case (Perl)",
		'I': "nothing in particular",
		'J': "nothing in particular",
		'M': "nothing in particular",
		'O': "nothing in particular",
		'T': "nothing in particular",
		'V': "a non-vertical-space (Perl, PCRE)",
		'Y': "nothing in particular",
	}
})

const syntaxChars = `^$\.*+?()[]{}|/`

// ecmaProblem says why a pattern is not portable ECMA-262 in Unicode mode (the mode of
// ajv and of the JSON Schema specifications' regular expressions), or returns "".
func ecmaProblem(p string) string {
	s := &ecmaScan{p: p}
	for ; s.i < len(p); s.i++ {
		var problem string
		switch c := p[s.i]; {
		case c == '\\':
			problem = s.escape()
		case s.inClass:
			problem = s.classMember()
		case c == '[':
			problem = s.openClass()
		case c == '(' && s.i+1 < len(p) && p[s.i+1] == '?':
			problem = groupProblem(p[s.i+2:])
		case c == '{':
			problem = s.quantifier()
		case c == '}':
			problem = "a lone } must be escaped as \\} in ECMA-262 Unicode mode"
		case c == ']':
			problem = "a lone ] must be escaped as \\] in ECMA-262 Unicode mode"
		}
		if problem != "" {
			return problem
		}
	}
	return ""
}

// ecmaScan is ecmaProblem's place in a pattern. Its steps read the construct that begins
// at i, leave i on the construct's last byte, and say what is wrong with it, or "".
type ecmaScan struct {
	p       string
	i       int
	inClass bool // inside [...]
}

// escape reads a backslash and what it escapes.
func (s *ecmaScan) escape() string {
	if s.i+1 >= len(s.p) {
		return "it ends with a lone backslash"
	}
	s.i++
	e := s.p[s.i]
	switch {
	case strings.IndexByte("dDwWsSbBnrtfv", e) >= 0, e >= '0' && e <= '9':
	case e == 'c':
		if s.i+1 >= len(s.p) || !isASCIILetter(s.p[s.i+1]) {
			return "\\c must be followed by a letter"
		}
	case e == 'x':
		return s.hexEscape()
	case e == 'u', e == 'k', e == 'p', e == 'P':
		s.skipArgument(e)
	case isASCIILetter(e):
		return fmt.Sprintf("\\%c is not an ECMA-262 escape (elsewhere it means %s); ECMA-262 engines reject it or read it as the letter %c",
			e, letterEscapes()[e], e)
	case strings.IndexByte(syntaxChars, e) >= 0, s.inClass && e == '-':
	case e < 0x80:
		return fmt.Sprintf("\\%c escapes a character that needs no escape; ECMA-262 engines in Unicode mode (such as ajv's) reject it: write %c", e, e)
	}
	return ""
}

// hexEscape checks the two digits after \x (i is on the x).
func (s *ecmaScan) hexEscape() string {
	p, i := s.p, s.i
	if i+1 < len(p) && p[i+1] == '{' {
		return "\\x{...} is not ECMA-262; write \\u{...}"
	}
	if i+2 >= len(p) || !isHexDigit(p[i+1]) || !isHexDigit(p[i+2]) {
		return "\\x must be followed by two hexadecimal digits"
	}
	return ""
}

// skipArgument skips the argument of \u{...}, \p{...}, \P{...} and \k<...> (i is on the
// letter e); an argument that is not closed is left to be read as characters.
func (s *ecmaScan) skipArgument(e byte) {
	opener, closer := byte('{'), byte('}')
	if e == 'k' {
		opener, closer = '<', '>'
	}
	if s.i+1 < len(s.p) && s.p[s.i+1] == opener {
		if j := strings.IndexByte(s.p[s.i+1:], closer); j >= 0 {
			s.i += j + 1
		}
	}
}

// classMember reads a character inside [...]: a ] closes the class, a [: begins a POSIX
// class.
func (s *ecmaScan) classMember() string {
	p, i := s.p, s.i
	if p[i] == ']' {
		s.inClass = false
	}
	if p[i] == '[' && i+1 < len(p) && p[i+1] == ':' {
		if j := strings.Index(p[i:], ":]"); j > 0 {
			return posixProblem(p[i : i+j+2])
		}
	}
	return ""
}

// openClass reads the [ that opens a class, with a ^ and a ] that follow it.
func (s *ecmaScan) openClass() string {
	p := s.p
	s.inClass = true
	if strings.HasPrefix(p[s.i:], "[[:") {
		if j := strings.Index(p[s.i:], ":]"); j > 0 {
			return posixProblem(p[s.i+1 : s.i+j+2])
		}
	}
	if s.i+1 < len(p) && p[s.i+1] == '^' {
		s.i++
	}
	if s.i+1 < len(p) && p[s.i+1] == ']' {
		s.i++ // "[]" or "[^]" in ECMA-262 is an empty class; "]" first is not a literal
	}
	return ""
}

// posixProblem says that class, such as [:alpha:], is POSIX's.
func posixProblem(class string) string {
	return fmt.Sprintf("%s is a POSIX class, which ECMA-262 does not have: it reads it as a set of the characters in it; use a range such as [a-zA-Z]", class)
}

// quantifier reads a { that should begin a {n}, {n,} or {n,m} quantifier.
func (s *ecmaScan) quantifier() string {
	p, i := s.p, s.i
	j := i + 1
	for j < len(p) && (p[j] >= '0' && p[j] <= '9' || p[j] == ',') {
		j++
	}
	if j < len(p) && p[j] == '}' && j > i+1 && p[i+1] == ',' {
		return fmt.Sprintf("%s has no lower bound, which ECMA-262 does not allow (it reads it literally); write {0%s", p[i:j+1], p[i+1:j+1])
	}
	if j >= len(p) || p[j] != '}' || j == i+1 {
		return "a lone { must be escaped as \\{ in ECMA-262 Unicode mode"
	}
	s.i = j
	return ""
}

// groupKinds says, by what follows "(?", which groups ECMA-262 has ("") and what the
// others are.
var groupKinds = []struct{ prefix, problem string }{
	{":", ""}, {"=", ""}, {"!", ""}, {"<=", ""}, {"<!", ""},
	{"P<", "(?P<name>...) is Python's named group; ECMA-262 writes (?<name>...)"},
	{">", "(?>...) is an atomic group, which ECMA-262 does not have"},
	{"#", "(?#...) is a comment group, which ECMA-262 does not have"},
}

// groupProblem reads a group that begins with "(?", given what follows it: the groups of
// groupKinds, a named group (?<name>...), or an inline flag group, which ECMA-262 does
// not have.
func groupProblem(rest string) string {
	for _, k := range groupKinds {
		if strings.HasPrefix(rest, k.prefix) {
			return k.problem
		}
	}
	if strings.HasPrefix(rest, "<") {
		if strings.IndexByte(rest, '>') < 0 {
			return "a named group is not closed with >"
		}
		return ""
	}
	end := strings.IndexAny(rest, ":)")
	if end < 0 {
		end = len(rest)
	}
	return fmt.Sprintf("(?%s is an inline flag group, which ECMA-262 does not have", rest[:end])
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// topLevel splits a pattern at its top-level alternation bars.
func topLevel(p string) []string {
	var parts []string
	depth, inClass, start := 0, false, 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			parts = append(parts, p[start:i])
			start = i + 1
		}
	}
	return append(parts, p[start:])
}

// endsAnchored reports whether a pattern ends with an unescaped $.
func endsAnchored(p string) bool {
	if !strings.HasSuffix(p, "$") {
		return false
	}
	bs := 0
	for i := len(p) - 2; i >= 0 && p[i] == '\\'; i-- {
		bs++
	}
	return bs%2 == 0
}

// quantified reports whether a pattern ends with a quantifier, and whether that
// quantifier allows zero repetitions.
func quantifiedEnd(p string) (bool, bool) {
	q := strings.TrimSuffix(p, "?") // lazy
	if q != p && (strings.HasSuffix(q, "+") || strings.HasSuffix(q, "*") || strings.HasSuffix(q, "}")) {
		p = q
	}
	if len(p) < 2 {
		return false, false
	}
	if p[len(p)-2] == '\\' {
		return false, false
	}
	switch p[len(p)-1] {
	case '+':
		return true, false
	case '*', '?':
		return true, true
	case '}':
		j := strings.LastIndexByte(p, '{')
		if j < 1 || p[j-1] == '\\' {
			return false, false
		}
		inner := p[j+1 : len(p)-1]
		if inner == "" || strings.Trim(inner, "0123456789,") != "" {
			return false, false
		}
		return true, strings.HasPrefix(inner, "0")
	}
	return false, false
}

// singleAtomRepeat reports a pattern that is one positive character class (a bracket
// class, \d or \w) repeated: "[a-z]+", "\d*", "[0-9]{2,}". It returns the atom.
func singleAtomRepeat(p string) (string, bool) {
	var atom string
	switch {
	case strings.HasPrefix(p, `\d`), strings.HasPrefix(p, `\w`):
		atom = p[:2]
	case strings.HasPrefix(p, "[") && !strings.HasPrefix(p, "[^"):
		j := 1
		if strings.HasPrefix(p[1:], "]") {
			return "", false
		}
		for j < len(p) && p[j] != ']' {
			if p[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(p) {
			return "", false
		}
		atom = p[:j+1]
	default:
		return "", false
	}
	rest := p[len(atom):]
	switch rest {
	case "+", "*", "+?", "*?":
		return atom, true
	}
	if strings.HasPrefix(rest, "{") && strings.HasSuffix(rest, "}") && strings.Trim(rest[1:len(rest)-1], "0123456789,") == "" {
		return atom, true
	}
	return "", false
}

// anchorProblem says why a pattern is surely meant to be anchored and is not, or "".
func anchorProblem(p string) string {
	alts := topLevel(p)
	if len(alts) > 1 {
		first, last := alts[0], alts[len(alts)-1]
		if strings.HasPrefix(first, "^") && endsAnchored(last) {
			for _, a := range alts {
				if !strings.HasPrefix(a, "^") || !endsAnchored(a) {
					return fmt.Sprintf("^ and $ bind to the first and the last alternative only, so the other alternatives match anywhere "+
						"in the string; write ^(%s)$", strings.Join(trimAnchors(alts), "|"))
				}
			}
		}
		return ""
	}
	starts, ends := strings.HasPrefix(p, "^"), endsAnchored(p)
	switch {
	case starts && !ends:
		if q, _ := quantifiedEnd(p); q {
			return fmt.Sprintf("it has ^ but no $, so its final quantifier only checks a prefix and anything may follow; "+
				"write %s to match the whole string", quoted(p+"$"))
		}
	case !starts && ends:
		body := strings.TrimSuffix(p, "$")
		if _, ok := singleAtomRepeat(body); ok {
			return fmt.Sprintf("it has $ but no ^, so it only checks a suffix and anything may precede it; write %s", quoted("^"+p))
		}
	case !starts && !ends:
		if atom, ok := singleAtomRepeat(p); ok {
			_, zero := quantifiedEnd(p)
			if zero {
				return fmt.Sprintf("without ^ and $ it matches every string (zero repetitions of %s match anywhere); write %s", atom, quoted("^"+p+"$"))
			}
			return fmt.Sprintf("without ^ and $ it accepts any string that contains one %s anywhere; write %s to match the whole string",
				atom, quoted("^"+p+"$"))
		}
	}
	return ""
}

func trimAnchors(alts []string) []string {
	out := make([]string, len(alts))
	for i, a := range alts {
		a = strings.TrimPrefix(a, "^")
		if endsAnchored(a) {
			a = strings.TrimSuffix(a, "$")
		}
		out[i] = a
	}
	return out
}
