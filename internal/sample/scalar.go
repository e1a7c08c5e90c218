package sample

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// ---- numbers ----

// bounds are the numeric constraints of a location, exactly.
type bounds struct {
	lower, upper         *big.Rat
	lowerExcl, upperExcl bool
	multiple             *big.Rat
	lowerAt, upperAt     string // where the bounds come from, for messages
}

func (g *gen) numberBounds(c *conj, integer bool) bounds {
	var b bounds
	for _, s := range c.all {
		in := g.info(s)
		if in.lower != nil {
			if cmp := cmpRat(in.lower, b.lower); b.lower == nil || cmp > 0 || cmp == 0 && in.lowerExcl {
				b.lower, b.lowerExcl, b.lowerAt = in.lower, in.lowerExcl, s.Location()
			}
		}
		if in.upper != nil {
			if cmp := cmpRat(in.upper, b.upper); b.upper == nil || cmp < 0 || cmp == 0 && in.upperExcl {
				b.upper, b.upperExcl, b.upperAt = in.upper, in.upperExcl, s.Location()
			}
		}
		if in.multipleOf != nil {
			b.multiple = source.LCMRat(b.multiple, in.multipleOf)
		}
	}
	if integer {
		b.multiple = source.LCMRat(b.multiple, big.NewRat(1, 1))
	}
	return b
}

func cmpRat(a, b *big.Rat) int {
	if b == nil {
		return 1
	}
	return a.Cmp(b)
}

func (g *gen) number(c *conj, ptr string, integer bool) (source.Value, bool) {
	b := g.numberBounds(c, integer)
	if b.lower != nil && b.upper != nil {
		if cmp := b.lower.Cmp(b.upper); cmp > 0 || cmp == 0 && (b.lowerExcl || b.upperExcl) {
			g.fail(ptr, true, "no number is in range: the lower bound %s (at %s) is not below the upper bound %s (at %s)",
				ratString(b.lower), b.lowerAt, ratString(b.upper), b.upperAt)
			return source.Value{}, false
		}
	}
	if b.multiple != nil {
		lo, hi := multiplesRange(b)
		if lo != nil && hi != nil && lo.Cmp(hi) > 0 {
			g.fail(ptr, true, "no multiple of %s lies within the bounds here", ratString(b.multiple))
			return source.Value{}, false
		}
		k := g.pickInt(lo, hi)
		v := new(big.Rat).Mul(new(big.Rat).SetInt(k), b.multiple)
		return numberValue(v), true
	}
	return numberValue(g.pickRat(b)), true
}

// multiplesRange returns the smallest and largest k with k·multiple within the bounds
// (nil: unbounded).
func multiplesRange(b bounds) (lo, hi *big.Int) {
	if b.lower != nil {
		q := new(big.Rat).Quo(b.lower, b.multiple)
		lo = ceilRat(q)
		if b.lowerExcl && q.IsInt() {
			lo.Add(lo, big.NewInt(1))
		}
	}
	if b.upper != nil {
		q := new(big.Rat).Quo(b.upper, b.multiple)
		hi = floorRat(q)
		if b.upperExcl && q.IsInt() {
			hi.Sub(hi, big.NewInt(1))
		}
	}
	return lo, hi
}

func floorRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	_ = m
	return q // DivMod rounds toward negative infinity for a positive divisor
}

func ceilRat(r *big.Rat) *big.Int {
	q := floorRat(r)
	if !r.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// pickInt picks an integer in [lo, hi] (nil: unbounded), preferring small non-negative
// values: within a window of 100 from the value of the range closest to zero.
func (g *gen) pickInt(lo, hi *big.Int) *big.Int {
	center := big.NewInt(0)
	if lo != nil && lo.Sign() > 0 {
		center.Set(lo)
	}
	if hi != nil && hi.Sign() < 0 {
		center.Set(hi)
	}
	if g.minimal {
		return center
	}
	a, b := new(big.Int).Set(center), new(big.Int).Add(center, big.NewInt(100))
	if hi != nil && b.Cmp(hi) > 0 {
		b.Set(hi)
	}
	if hi != nil && center.Cmp(hi) == 0 {
		a.Sub(center, big.NewInt(100))
		if lo != nil && a.Cmp(lo) < 0 {
			a.Set(lo)
		}
		b.Set(center)
	}
	span := new(big.Int).Sub(b, a)
	if span.Sign() <= 0 {
		return a
	}
	n := g.r.Int64N(span.Int64() + 1)
	return a.Add(a, big.NewInt(n))
}

// pickRat picks a number within the bounds: an integer when one fits, else a short
// decimal, else the midpoint.
func (g *gen) pickRat(b bounds) *big.Rat {
	in := func(r *big.Rat) bool {
		if b.lower != nil {
			if c := r.Cmp(b.lower); c < 0 || c == 0 && b.lowerExcl {
				return false
			}
		}
		if b.upper != nil {
			if c := r.Cmp(b.upper); c > 0 || c == 0 && b.upperExcl {
				return false
			}
		}
		return true
	}
	// An integer or a number with two decimals near the small end of the range.
	ib := b
	ib.multiple = big.NewRat(1, 100)
	if g.minimal || g.r.IntN(2) == 0 {
		ib.multiple = big.NewRat(1, 1)
	}
	lo, hi := multiplesRange(ib)
	if lo == nil || hi == nil || lo.Cmp(hi) <= 0 {
		k := g.pickInt(lo, hi)
		r := new(big.Rat).Mul(new(big.Rat).SetInt(k), ib.multiple)
		if in(r) {
			return r
		}
	}
	switch {
	case b.lower != nil && b.upper != nil:
		mid := new(big.Rat).Add(b.lower, b.upper)
		return mid.Quo(mid, big.NewRat(2, 1))
	case b.lower != nil:
		return new(big.Rat).Add(b.lower, big.NewRat(1, 1))
	case b.upper != nil:
		return new(big.Rat).Sub(b.upper, big.NewRat(1, 1))
	}
	return big.NewRat(0, 1)
}

// numberValue writes a rational with a terminating decimal expansion as a JSON number.
func numberValue(r *big.Rat) source.Value {
	return source.NumberValue(ratString(r))
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	// The denominator is 2^a·5^b for every number built from decimals: max(a, b) digits
	// are exact.
	d := new(big.Int).Set(r.Denom())
	digits := 0
	for _, p := range []int64{2, 5} {
		n, m := 0, new(big.Int)
		bp := big.NewInt(p)
		for {
			q, rem := new(big.Int).QuoRem(d, bp, m)
			if rem.Sign() != 0 {
				break
			}
			d, n = q, n+1
		}
		digits = max(digits, n)
	}
	if d.Cmp(big.NewInt(1)) != 0 {
		digits = 30 // not a terminating decimal: the closest 30-digit one
	}
	s := r.FloatString(digits)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// ---- strings ----

// strSpec is what the schemas of a conjunction ask of a string: its length bounds (hi < 0:
// none), patterns, formats, content encoding and media type, and the draft that reads
// the formats.
type strSpec struct {
	lo, hi     int
	pats       []*patternGen
	formats    []string
	enc, media string
	draft      *schema.Draft
}

// strSpecOf gathers what the schemas of c ask of a string.
func (g *gen) strSpecOf(c *conj) *strSpec {
	sp := &strSpec{hi: -1, draft: g.root.Draft}
	for _, s := range c.all {
		in := g.info(s)
		sp.lo = max(sp.lo, in.minLen)
		if in.maxLen >= 0 && (sp.hi < 0 || in.maxLen < sp.hi) {
			sp.hi = in.maxLen
		}
		if in.pattern != nil && !slices.Contains(sp.pats, in.pattern) {
			sp.pats = append(sp.pats, in.pattern)
		}
		if in.format != "" && !slices.Contains(sp.formats, in.format) {
			sp.formats = append(sp.formats, in.format)
		}
		if in.contentEnc != "" {
			sp.enc = in.contentEnc
		}
		if in.contentMed != "" {
			sp.media = in.contentMed
		}
	}
	if len(c.all) > 0 {
		sp.draft = c.all[0].Draft
	}
	return sp
}

// accepts reports a string that meets the spec's length bounds, patterns and formats.
func (g *gen) accepts(sp *strSpec, s string) bool {
	n := utf8.RuneCountInString(s)
	if n < sp.lo || sp.hi >= 0 && n > sp.hi {
		return false
	}
	for _, p := range sp.pats {
		if !p.matches(s) {
			return false
		}
	}
	for _, f := range sp.formats {
		if !g.formatOK(f, s, sp.draft) {
			return false
		}
	}
	return true
}

func (g *gen) str(c *conj, ptr string) (source.Value, bool) {
	sp := g.strSpecOf(c)
	lo, hi := sp.lo, sp.hi
	if hi >= 0 && lo > hi {
		g.fail(ptr, true, "no string fits: minLength %d is greater than maxLength %d", lo, hi)
		return source.Value{}, false
	}
	if lo > maxGenerated {
		g.fail(ptr, false, "a string of %d characters is too long to generate (at most %d)", lo, maxGenerated)
		return source.Value{}, false
	}
	accept := func(s string) bool { return g.accepts(sp, s) }
	var last string
	for _, f := range sp.formats {
		if !slices.Contains(schema.KnownFormats(), f) {
			continue
		}
		for range 6 {
			s := g.formatValue(f, lo, hi)
			last = s
			if accept(s) {
				return source.StringValue(s), true
			}
		}
	}
	if len(sp.pats) > 0 {
		return source.StringValue(g.patterned(sp, ptr, accept, last)), true
	}
	if enc, media := sp.enc, sp.media; enc == "base64" || media == "application/json" {
		text := "{}"
		if media != "application/json" {
			text = g.words(4, 12)
		}
		if enc == "base64" {
			text = base64.StdEncoding.EncodeToString([]byte(text))
		}
		if accept(text) {
			return source.StringValue(text), true
		}
	}
	for range 4 {
		s := g.text(lo, hi)
		if accept(s) {
			return source.StringValue(s), true
		}
		last = s
	}
	if last == "" {
		last = g.text(lo, hi)
	}
	return source.StringValue(last), true
}

// patterned is a string for a spec with patterns: each pattern leads in turn, the others
// and the formats are checked; then a match of each pattern, one after the other. When
// none is accepted, it reports the failure and returns last, the last string tried.
func (g *gen) patterned(sp *strSpec, ptr string, accept func(string) bool, last string) string {
	pats := sp.pats
	for _, p := range pats {
		if s, ok := p.fit(g.r, sp.lo, sp.hi, 10, accept); ok {
			return s
		}
	}
	// Several patterns: a match of each, one after the other (those anchored at the
	// start first, at the end last).
	if len(pats) > 1 {
		ordered := slices.Clone(pats)
		slices.SortStableFunc(ordered, func(a, b *patternGen) int { return anchorRank(a) - anchorRank(b) })
		for range 10 {
			var sb strings.Builder
			for _, p := range ordered {
				part, _ := p.generate(g.r, repShort)
				sb.WriteString(part)
			}
			if s := sb.String(); accept(s) {
				return s
			}
		}
	}
	for _, p := range pats {
		if p.slow {
			g.fail(ptr, false, "the pattern %q could not be matched within its time limit", p.src)
			return last
		}
	}
	g.fail(ptr, false, "no string was found that matches the pattern %q within the length bounds", pats[0].src)
	return last
}

func anchorRank(p *patternGen) int {
	switch {
	case p.startAnchored && !p.endAnchored:
		return 0
	case p.endAnchored && !p.startAnchored:
		return 2
	}
	return 1
}

var words = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
	"juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
	"uniform", "victor", "whiskey", "xray", "yankee", "zulu"}

// words returns text of whole words of between lo and hi characters.
func (g *gen) words(lo, hi int) string {
	var sb strings.Builder
	for sb.Len() < lo {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(words[g.r.IntN(len(words))])
	}
	s := sb.String()
	if len(s) > hi {
		s = strings.TrimSpace(s[:hi])
	}
	return s
}

// text returns a readable string with a length in [lo, hi] (hi < 0: unbounded): whole
// words when the bounds leave room, else words cut to length.
func (g *gen) text(lo, hi int) string {
	if g.minimal && lo == 0 {
		return ""
	}
	if !g.minimal && lo <= 40 {
		// Whole words when some combination fits.
		for range 6 {
			s := words[g.r.IntN(len(words))]
			for len(s) < lo || g.r.IntN(3) == 0 && len(s) < 12 {
				s += " " + words[g.r.IntN(len(words))]
			}
			if hi < 0 || len(s) <= hi {
				return s
			}
		}
	}
	n := 4 + g.r.IntN(9)
	if g.minimal {
		n = lo
	}
	n = max(n, lo)
	if hi >= 0 {
		n = min(n, hi)
	}
	if n == 0 {
		return ""
	}
	s := g.words(n, n)
	for utf8.RuneCountInString(s) < n {
		s += string(alnum[g.r.IntN(26)])
	}
	return s
}

// formatOK checks s against a known format with the validator's semantics; unknown
// formats accept everything (the validator ignores them).
func (g *gen) formatOK(name, s string, draft *schema.Draft) bool {
	chk := g.formatChecker(name, draft)
	if chk == nil {
		return true
	}
	ok, err := g.valid(chk, source.StringValue(s))
	return err == nil && ok
}

func (g *gen) formatChecker(name string, draft *schema.Draft) *schema.Schema {
	key := draft.Name + "\x00" + name
	if chk, ok := g.formats[key]; ok {
		return chk
	}
	var chk *schema.Schema
	if slices.Contains(schema.KnownFormats(), name) {
		uri := "urn:jstk:sample:format:" + name
		doc, err := source.ParseJSON(uri, fmt.Appendf(nil, `{"format": %q}`, name), nil)
		if err == nil {
			c := schema.NewCompiler(&schema.Options{AssertFormat: true, Draft: draft, ForceDraft: true})
			if c.AddDocument(uri, doc) == nil {
				chk, _ = c.Compile(uri)
			}
		}
	}
	g.formats[key] = chk
	return chk
}

// formatValue generates a value of a standard format, stretched towards lo characters
// where the format allows.
func (g *gen) formatValue(name string, lo, hi int) string {
	r := g.r
	pad := func(base string, fill func(n int) string) string {
		if n := utf8.RuneCountInString(base); n < lo {
			return base + fill(lo-n)
		}
		return base
	}
	letters := func(n int) string { return randomText(r, n) }
	y, mo, d := 2000+r.IntN(30), 1+r.IntN(12), 1+r.IntN(28)
	h, mi, sec := r.IntN(24), r.IntN(60), r.IntN(60)
	switch name {
	case "date-time":
		return fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, mo, d, h, mi, sec)
	case "date":
		return fmt.Sprintf("%04d-%02d-%02d", y, mo, d)
	case "time":
		return fmt.Sprintf("%02d:%02d:%02dZ", h, mi, sec)
	case "duration":
		return []string{"P1D", "PT30M", "P3W", "P1Y2M10DT2H30M", "PT45S"}[r.IntN(5)]
	case "email":
		user := words[r.IntN(len(words))]
		return pad(user, letters) + "@example.com"
	case "idn-email":
		return []string{"josé@example.com", "用户@例子.广告", "user@bücher.example"}[r.IntN(3)]
	case "hostname":
		host := []string{"api", "www", "mail", "cdn", "app"}[r.IntN(5)]
		base := host + ".example.com"
		if n := len(base); n < lo {
			return host + letters(min(lo-n, 50)) + ".example.com"
		}
		if hi >= 0 && len(base) > hi {
			return letters(max(1, hi-4)) + ".io"
		}
		return base
	case "idn-hostname":
		return []string{"bücher.example", "例子.广告", "münchen.de"}[r.IntN(3)]
	case "ipv4":
		return fmt.Sprintf("%d.%d.%d.%d", 10+r.IntN(200), r.IntN(256), r.IntN(256), 1+r.IntN(254))
	case "ipv6":
		return fmt.Sprintf("2001:db8::%x:%x", r.IntN(0xffff), 1+r.IntN(0xfffe))
	case "uri":
		return pad(fmt.Sprintf("https://example.com/%s/%d", words[r.IntN(len(words))], r.IntN(1000)), letters)
	case "uri-reference":
		return pad(fmt.Sprintf("/%s/%d", words[r.IntN(len(words))], r.IntN(1000)), letters)
	case "iri":
		return pad("https://example.com/résumé/"+words[r.IntN(len(words))], letters)
	case "iri-reference":
		return pad("/résumé/"+words[r.IntN(len(words))], letters)
	case "uri-template":
		return pad("https://example.com/"+words[r.IntN(len(words))]+"/{id}", letters)
	case "json-pointer":
		return pad("/"+words[r.IntN(len(words))]+"/0", letters)
	case "relative-json-pointer":
		return []string{"0", "1/" + words[r.IntN(len(words))], "2#", "0/0"}[r.IntN(4)]
	case "regex":
		return []string{"^[a-z]+$", "\\d{3}-\\d{4}", "^(foo|bar)*$", "[A-Z][a-z]+"}[r.IntN(4)]
	case "uuid":
		b := make([]byte, 16)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
	}
	return g.text(lo, hi)
}
