package schema

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/jstk-dev/jstk/internal/source"

	"github.com/dlclark/regexp2/v2"
	"golang.org/x/net/idna"
)

// formatDef checks one format on strings.
type formatDef struct {
	name  string
	check func(s string) error
	// checkDraft, when set, replaces check with a draft-aware rule.
	checkDraft func(s string, version int) error
	// value, when set, is a format of Options.Formats: it checks values of every type.
	value func(v source.Value) error
}

// check1 checks one value: a string against a built-in format, any value against a
// format of Options.Formats.
func (f *formatDef) check1(v source.Value, version int) error {
	if f.value != nil {
		return f.value(v)
	}
	return f.validate(v.Str(), version)
}

func (f *formatDef) validate(s string, version int) error {
	if f.checkDraft != nil {
		return f.checkDraft(s, version)
	}
	return f.check(s)
}

// formats is the table of the formats jstk asserts, built on first use (most runs of jstk
// compile no format).
var formats = sync.OnceValue(func() map[string]*formatDef {
	formats := map[string]*formatDef{}
	for name, fn := range map[string]func(string) error{
		"date-time":             checkDateTime,
		"date":                  checkDate,
		"time":                  checkTime,
		"duration":              checkDuration,
		"email":                 func(s string) error { return checkEmail(s, false) },
		"idn-email":             func(s string) error { return checkEmail(s, true) },
		"hostname":              checkHostname,
		"idn-hostname":          checkIDNHostname,
		"ipv4":                  checkIPv4,
		"ipv6":                  checkIPv6,
		"uri":                   func(s string) error { return checkURI(s, true, false) },
		"uri-reference":         func(s string) error { return checkURI(s, false, false) },
		"iri":                   func(s string) error { return checkURI(s, true, true) },
		"iri-reference":         func(s string) error { return checkURI(s, false, true) },
		"uri-template":          checkURITemplate,
		"json-pointer":          checkJSONPointer,
		"relative-json-pointer": checkRelativeJSONPointer,
		"regex":                 checkRegex,
		"uuid":                  checkUUID,
	} {
		formats[name] = &formatDef{name: name, check: fn}
	}
	// Drafts 4 and 6 define hostname by RFC 1123 alone; later drafts add the IDNA A-label rules.
	formats["hostname"].checkDraft = func(s string, version int) error {
		if version <= 6 {
			return checkHostname1123(s)
		}
		return checkHostname(s)
	}
	return formats
})

// KnownFormats lists the format names jstk can assert.
func KnownFormats() []string { return sortedKeys(formats()) }

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func checkDate(s string) error {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' || !digits(s[:4]) || !digits(s[5:7]) || !digits(s[8:]) {
		return errors.New("expected YYYY-MM-DD")
	}
	y, _ := strconv.Atoi(s[:4])
	m, _ := strconv.Atoi(s[5:7])
	d, _ := strconv.Atoi(s[8:])
	if m < 1 || m > 12 {
		return fmt.Errorf("month %d out of range", m)
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && (y%4 == 0 && (y%100 != 0 || y%400 == 0)) {
		days = 29
	}
	if d < 1 || d > days {
		return fmt.Errorf("day %d out of range for %04d-%02d", d, y, m)
	}
	return nil
}

func checkTime(s string) error {
	// partial-time: HH:MM:SS[.frac], then Z or +HH:MM / -HH:MM
	if len(s) < 9 || s[2] != ':' || s[5] != ':' || !digits(s[:2]) || !digits(s[3:5]) || !digits(s[6:8]) {
		return errors.New("expected HH:MM:SS followed by Z or an offset")
	}
	h, _ := strconv.Atoi(s[:2])
	mi, _ := strconv.Atoi(s[3:5])
	sec, _ := strconv.Atoi(s[6:8])
	rest := s[8:]
	if strings.HasPrefix(rest, ".") {
		j := 1
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 1 {
			return errors.New("expected digits after the decimal point")
		}
		rest = rest[j:]
	}
	var offMin int
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':' && digits(rest[1:3]) && digits(rest[4:]):
		oh, _ := strconv.Atoi(rest[1:3])
		om, _ := strconv.Atoi(rest[4:])
		if oh > 23 || om > 59 {
			return errors.New("time offset out of range")
		}
		offMin = oh*60 + om
		if rest[0] == '+' {
			offMin = -offMin
		}
	default:
		return errors.New("expected a time zone: Z or +HH:MM / -HH:MM")
	}
	if h > 23 || mi > 59 || sec > 60 {
		return errors.New("hour, minute or second out of range")
	}
	if sec == 60 {
		// A leap second happens at 23:59:60 UTC only.
		utc := ((h*60+mi+offMin)%(24*60) + 24*60) % (24 * 60)
		if utc != 23*60+59 {
			return errors.New("a leap second must fall on 23:59:60 UTC")
		}
	}
	return nil
}

func checkDateTime(s string) error {
	i := strings.IndexAny(s, "Tt")
	if i != 10 {
		return errors.New("expected a date, \"T\", and a time")
	}
	if err := checkDate(s[:10]); err != nil {
		return err
	}
	return checkTime(s[11:])
}

func checkDuration(s string) error {
	bad := errors.New("expected an ISO 8601 duration such as P3DT4H or P2W")
	if len(s) < 2 || s[0] != 'P' {
		return bad
	}
	rest := s[1:]
	if strings.HasSuffix(rest, "W") {
		if !digits(rest[:len(rest)-1]) {
			return bad
		}
		return nil
	}
	date, tm, hasT := strings.Cut(rest, "T")
	if hasT && tm == "" {
		return bad
	}
	if date == "" && !hasT {
		return bad
	}
	// The units present must be a contiguous run of Y M D (or H M S), in that order.
	parse := func(part, units string) bool {
		next := -1
		for part != "" {
			j := 0
			for j < len(part) && part[j] >= '0' && part[j] <= '9' {
				j++
			}
			if j == 0 || j == len(part) {
				return false
			}
			k := strings.IndexByte(units, part[j])
			if k < 0 || (next >= 0 && k != next) {
				return false
			}
			next = k + 1
			part = part[j+1:]
		}
		return true
	}
	if !parse(date, "YMD") || !parse(tm, "HMS") {
		return bad
	}
	return nil
}

func checkIPv4(s string) error {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return errors.New("expected four decimal numbers separated by dots")
	}
	for _, p := range parts {
		if !digits(p) || len(p) > 3 || (len(p) > 1 && p[0] == '0') {
			return fmt.Errorf("invalid part %q", p)
		}
		if n, _ := strconv.Atoi(p); n > 255 {
			return fmt.Errorf("part %s is greater than 255", p)
		}
	}
	return nil
}

func checkIPv6(s string) error {
	if strings.ContainsAny(s, "%") {
		return errors.New("zone identifiers are not allowed")
	}
	for _, r := range s {
		if !(r == ':' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F')) {
			return fmt.Errorf("invalid character %q", r)
		}
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 && strings.Contains(s[i:], ".") {
		if err := checkIPv4(s[i+1:]); err != nil {
			return fmt.Errorf("embedded IPv4 address: %v", err)
		}
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() {
		return errors.New("not an IPv6 address")
	}
	return nil
}

// checkHostname1123 checks a host name by RFC 1123: labels of letters, digits and hyphens.
func checkHostname1123(s string) error {
	if s == "" || len(s) > 253 {
		return errors.New("a host name has 1 to 253 characters")
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return errors.New("each label has 1 to 63 characters")
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("label %q starts or ends with a hyphen", label)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("label %q holds a character other than letters, digits and hyphens", label)
			}
		}
	}
	return nil
}

// checkHostname adds the rules of RFC 5890-5892 for A-labels to RFC 1123.
func checkHostname(s string) error {
	if err := checkHostname1123(s); err != nil {
		return err
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) >= 4 && label[2:4] == "--" {
			if !strings.EqualFold(label[:2], "xn") {
				return fmt.Errorf("label %q has hyphens in the third and fourth positions", label)
			}
			u, err := idnaStrict().ToUnicode(strings.ToLower(label))
			if err != nil {
				return fmt.Errorf("label %q is not valid Punycode", label)
			}
			if err := checkULabel(u); err != nil {
				return fmt.Errorf("label %q: %v", label, err)
			}
		}
	}
	return nil
}

// checkULabel applies the IDNA2008 rules that x/net/idna (which follows UTS #46) does not:
// the exceptions of RFC 5892 section 2.6 and the CONTEXTO rules.
func checkULabel(u string) error {
	for _, r := range u {
		switch r {
		case '\u0640', '\u07fa', '\u302e', '\u302f', '\u3031', '\u3032', '\u3033', '\u3034', '\u3035', '\u303b':
			return fmt.Errorf("code point U+%04X is disallowed", r)
		}
		// RFC 5892: letters, digits and marks are valid; other categories (punctuation,
		// symbols, spaces) are not, save the hyphen and the contextual code points.
		if r < 0x80 || r == '\u00b7' || r == '\u0375' || r == '\u05f3' || r == '\u05f4' || r == '\u30fb' || r == '\u200c' || r == '\u200d' ||
			r == '\u00df' || r == '\u03c2' || r == '\u06fd' || r == '\u06fe' || r == '\u0f0b' || r == '\u3007' {
			continue
		}
		if !unicode.In(r, unicode.Ll, unicode.Lu, unicode.Lo, unicode.Lm, unicode.Nd, unicode.Mn, unicode.Mc) {
			return fmt.Errorf("code point U+%04X is disallowed", r)
		}
	}
	return checkContextRules(u)
}

var idnaStrict = sync.OnceValue(func() *idna.Profile {
	return idna.New(idna.ValidateLabels(true), idna.CheckHyphens(true), idna.CheckJoiners(true),
		idna.BidiRule(), idna.StrictDomainName(true), idna.Transitional(false))
})

func checkIDNHostname(s string) error {
	if s == "" {
		return errors.New("empty host name")
	}
	// RFC 3490: these full stops separate labels too.
	s = strings.NewReplacer("\u3002", ".", "\uff0e", ".", "\uff61", ".").Replace(s)
	// Every code point is at least one octet of the A-label form, which has at most 253
	// (RFC 1034): a longer name is refused before IDNA's mapping and Punycode, whose cost
	// grows with the square of a label's length, read it.
	if n := utf8.RuneCountInString(strings.TrimSuffix(s, ".")); n > 253 {
		return fmt.Errorf("%d characters long, more than the 253 a host name may have", n)
	}
	for _, r := range s {
		if unicode.Is(unicode.Cc, r) || r == ' ' {
			return fmt.Errorf("invalid character %q", r)
		}
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" {
			return errors.New("empty label")
		}
		if err := checkULabel(label); err != nil {
			return err
		}
	}
	a, err := idnaStrict().ToASCII(s)
	if err != nil {
		return fmt.Errorf("not a valid internationalized host name: %v", err)
	}
	return checkHostname(a)
}

// checkContextRules applies the CONTEXTO rules of RFC 5892 that x/net/idna leaves out.
func checkContextRules(s string) error {
	rs := []rune(s)
	hasArabicIndic, hasExtArabicIndic, hasKatakanaMiddle, hasJapanese := false, false, false, false
	for i, r := range rs {
		switch {
		case r == '\u00b7': // MIDDLE DOT: between two l
			if i == 0 || i == len(rs)-1 || rs[i-1] != 'l' || rs[i+1] != 'l' {
				return errors.New("MIDDLE DOT must stand between two 'l'")
			}
		case r == '\u0375': // GREEK KERAIA: followed by Greek
			if i == len(rs)-1 || !unicode.Is(unicode.Greek, rs[i+1]) {
				return errors.New("GREEK LOWER NUMERAL SIGN must be followed by a Greek character")
			}
		case r == '\u05f3' || r == '\u05f4': // HEBREW GERESH/GERSHAYIM: preceded by Hebrew
			if i == 0 || !unicode.Is(unicode.Hebrew, rs[i-1]) {
				return errors.New("HEBREW GERESH must follow a Hebrew character")
			}
		case r == '\u30fb':
			hasKatakanaMiddle = true
		case r >= '\u0660' && r <= '\u0669':
			hasArabicIndic = true
		case r >= '\u06f0' && r <= '\u06f9':
			hasExtArabicIndic = true
		}
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) && r != '\u30fb' {
			hasJapanese = true
		}
	}
	if hasKatakanaMiddle && !hasJapanese {
		return errors.New("KATAKANA MIDDLE DOT needs Hiragana, Katakana or Han in the label")
	}
	if hasArabicIndic && hasExtArabicIndic {
		return errors.New("Arabic-Indic and extended Arabic-Indic digits cannot be mixed")
	}
	return nil
}

func checkEmail(s string, idn bool) error {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return errors.New("expected local-part@domain")
	}
	local, domain := s[:at], s[at+1:]
	if strings.HasPrefix(local, `"`) {
		if len(local) < 2 || !strings.HasSuffix(local, `"`) {
			return errors.New("unterminated quoted local part")
		}
		q := local[1 : len(local)-1]
		for i := 0; i < len(q); i++ {
			if q[i] == '\\' {
				i++
				continue
			}
			if q[i] == '"' {
				return errors.New("unescaped quote in quoted local part")
			}
		}
	} else {
		if local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
			return errors.New("the local part cannot start or end with a dot or hold two dots in a row")
		}
		for _, r := range local {
			if r < 0x80 {
				if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-/=?^_`{|}~.", r)) {
					return fmt.Errorf("invalid character %q in the local part", r)
				}
			} else if !idn {
				return fmt.Errorf("non-ASCII character %q in the local part", r)
			}
		}
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		lit := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			return checkIPv6(v6)
		}
		return checkIPv4(lit)
	}
	if idn {
		return checkIDNHostname(domain)
	}
	return checkHostname(domain)
}

func checkUUID(s string) error {
	if len(s) != 36 {
		return errors.New("expected 8-4-4-4-12 hexadecimal digits")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return errors.New("expected 8-4-4-4-12 hexadecimal digits")
			}
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return errors.New("expected 8-4-4-4-12 hexadecimal digits")
		}
	}
	return nil
}

func checkJSONPointer(s string) error {
	if s != "" && s[0] != '/' {
		return errors.New("a JSON Pointer is empty or starts with /")
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return errors.New("~ must be followed by 0 or 1")
		}
	}
	return nil
}

func checkRelativeJSONPointer(s string) error {
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == 0 || (j > 1 && s[0] == '0') {
		return errors.New("expected a non-negative integer without leading zeros")
	}
	rest := s[j:]
	if rest == "#" {
		return nil
	}
	return checkJSONPointer(rest)
}

func checkRegex(s string) error {
	if err := CheckPatternLimits(s); err != nil {
		return err
	}
	if err := checkECMAEscapes(s); err != nil {
		return err
	}
	if _, err := regexp2.Compile(s, regexp2.ECMAScript|regexp2.Unicode); err != nil {
		return cleanRegexErr(err)
	}
	return nil
}

// checkECMAEscapes rejects syntax that other regular expression languages have and
// ECMA-262 (in Unicode mode) does not: unknown letter escapes, inline flags and comments.
func checkECMAEscapes(p string) error {
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			if i+1 >= len(p) {
				return errors.New("trailing backslash")
			}
			e := p[i+1]
			if isAlpha(e) && !strings.ContainsRune("dDwWsSbBfnrtvcxukpP", rune(e)) {
				return fmt.Errorf("\\%c is not an ECMA-262 escape", e)
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(' && strings.HasPrefix(p[i:], "(?"):
			rest := p[i+2:]
			if !(strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "!") ||
				strings.HasPrefix(rest, "<=") || strings.HasPrefix(rest, "<!") || strings.HasPrefix(rest, "<")) {
				return errors.New("(? must start a group of the form (?: (?= (?! (?<= (?<! or (?<name>")
			}
		}
	}
	return nil
}

func checkURITemplate(s string) error {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				return errors.New("unclosed expression")
			}
			expr := s[i+1 : i+j]
			if expr != "" && strings.IndexByte("+#./;?&=,!@|", expr[0]) >= 0 {
				expr = expr[1:]
			}
			if expr == "" {
				return errors.New("empty expression")
			}
			for _, v := range strings.Split(expr, ",") {
				v = strings.TrimSuffix(v, "*")
				if k := strings.IndexByte(v, ':'); k >= 0 {
					n := v[k+1:]
					if !digits(n) || len(n) > 4 || n[0] == '0' {
						return errors.New("a prefix modifier is a number from 1 to 9999")
					}
					v = v[:k]
				}
				if v == "" || v[0] == '.' || v[len(v)-1] == '.' || strings.Contains(v, "..") {
					return errors.New("invalid variable name")
				}
				for _, r := range v {
					if !(r == '_' || r == '.' || r == '%' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
						return fmt.Errorf("invalid character %q in variable name", r)
					}
				}
			}
			i += j
		case '}':
			return errors.New("unmatched }")
		default:
			c := s[i]
			if c <= ' ' || c == 0x7f || strings.IndexByte(`"<>\\^`+"`|", c) >= 0 {
				return fmt.Errorf("invalid character %q in a literal", c)
			}
			if c == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
				return errors.New("invalid percent-encoding")
			}
		}
	}
	return nil
}

// checkURI validates RFC 3986 (or RFC 3987 when iri) syntax. absolute requires a scheme.
func checkURI(s string, absolute, iri bool) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return errors.New("invalid percent-encoding")
			}
		}
		if c >= 0x80 {
			if !iri {
				return errors.New("non-ASCII characters must be percent-encoded")
			}
			continue
		}
		if c <= ' ' || strings.IndexByte(`"<>\^`+"`{|}", c) >= 0 {
			return fmt.Errorf("invalid character %q", c)
		}
	}
	if !utf8.ValidString(s) {
		return errors.New("invalid UTF-8")
	}
	rest := s
	scheme := ""
	if i := strings.IndexAny(rest, ":/?#"); i > 0 && rest[i] == ':' {
		scheme, rest = rest[:i], rest[i+1:]
		if !isAlpha(scheme[0]) {
			return errors.New("a scheme starts with a letter")
		}
		for j := 1; j < len(scheme); j++ {
			c := scheme[j]
			if !(isAlpha(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
				return fmt.Errorf("invalid character %q in the scheme", c)
			}
		}
	} else if i == 0 && rest[0] == ':' {
		return errors.New("missing scheme")
	}
	if absolute && scheme == "" {
		return errors.New("not an absolute URI: the scheme is missing")
	}
	tail := ""
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest, tail = rest[:i], rest[i:]
	}
	if i := strings.IndexByte(tail, '#'); i >= 0 && strings.IndexByte(tail[i+1:], '#') >= 0 {
		return errors.New("more than one #")
	}
	path := rest
	if strings.HasPrefix(rest, "//") {
		auth := rest[2:]
		path = ""
		if i := strings.IndexByte(auth, '/'); i >= 0 {
			auth, path = auth[:i], auth[i:]
		}
		if err := checkAuthority(auth); err != nil {
			return err
		}
	} else if scheme == "" {
		// A relative path's first segment cannot hold ":".
		seg, _, _ := strings.Cut(path, "/")
		if strings.Contains(seg, ":") {
			return errors.New("the first path segment of a relative reference cannot hold ':'")
		}
	}
	if strings.ContainsAny(path, "[]") || strings.ContainsAny(tail, "[]") {
		return errors.New("square brackets are only allowed around an IP literal in the authority")
	}
	return nil
}

func checkAuthority(auth string) error {
	host := auth
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		ui := host[:i]
		if strings.ContainsAny(ui, "[]@") {
			return errors.New("invalid user information")
		}
		host = host[i+1:]
	}
	if strings.HasPrefix(host, "[") {
		j := strings.IndexByte(host, ']')
		if j < 0 {
			return errors.New("unclosed IP literal")
		}
		lit := host[1:j]
		if !strings.HasPrefix(lit, "v") && !strings.HasPrefix(lit, "V") {
			if err := checkIPv6(lit); err != nil {
				return err
			}
		}
		host = host[j+1:]
		if host != "" && host[0] != ':' {
			return errors.New("unexpected text after the IP literal")
		}
	} else if strings.ContainsAny(host, "[]") {
		return errors.New("brackets are only allowed around an IP literal")
	}
	if i := strings.IndexByte(host, ':'); i >= 0 {
		port := host[i+1:]
		if port != "" && !digits(port) {
			return errors.New("the port must be a number")
		}
	}
	return nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
