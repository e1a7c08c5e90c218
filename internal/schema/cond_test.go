package schema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jstk-dev/jstk/internal/source"
)

// An allOf of conditionals on one property's constant gives, with the shortcut, the
// verdicts and the errors of the evaluation as written, in every draft that has if, with
// and without unevaluatedProperties (which reads the annotations of the ifs that hold).
func TestCondShortcutAgrees(t *testing.T) {
	t.Parallel()
	instances := []string{`{}`, `[]`, `"k1"`, `{"kind":1}`, `{"kind":9}`, `{"kind":null}`, `{"kind":"k\u0030","a0":1}`,
		`{"kind":"k12"}`, `{"kind":"k5","other":1}`, `{"a1":"x"}`, `{"kind":"k7","a7":"no"}`, `{"kind":"k9"}`, `{"kind":"k9","a9":1}`}
	for i := 0; i < 12; i++ {
		instances = append(instances, fmt.Sprintf(`{"kind":"k%d","a%d":%d}`, i, i, i), fmt.Sprintf(`{"kind":"k%d"}`, i),
			fmt.Sprintf(`{"kind":"k%d","a%d":1,"extra":2}`, i, i))
	}
	for _, p := range condPairs(t) {
		n := 0
		for _, sub := range p.fast.allOf {
			if sub.cond != nil {
				n++
			}
		}
		if n != 10 { // all but the one with an else and the one with a number
			t.Errorf("%s: %d conditionals take the shortcut, want 10", p.name, n)
		}
		for _, inst := range instances {
			p.agree(t, parse(t, inst).Root)
		}
	}
}

// FuzzCondShortcut gives arbitrary instances to the schemas of TestCondShortcutAgrees.
func FuzzCondShortcut(f *testing.F) {
	for _, seed := range []string{`{"kind":"k3","a3":1}`, `{"kind":"k5"}`, `[{"kind":"k1"}]`, `{"kind":"k1","kind":"k2"}`, `{"a4":"x"}`} {
		f.Add(seed)
	}
	var pairs []condPair
	f.Fuzz(func(t *testing.T, inst string) {
		if pairs == nil {
			pairs = condPairs(t)
		}
		doc, err := source.ParseJSON("i.json", []byte(inst), nil)
		if err != nil {
			return
		}
		for _, p := range pairs {
			p.agree(t, doc.Root)
		}
	})
}

// condPair is one schema compiled twice: with the shortcut, and with it taken away.
type condPair struct {
	name        string
	fast, plain *Schema
}

// agree checks that both give the same verdict and errors on v.
func (p condPair) agree(t *testing.T, v source.Value) {
	t.Helper()
	fv, ferr := p.fast.Valid(v)
	pv, perr := p.plain.Valid(v)
	if fv != pv || (ferr == nil) != (perr == nil) {
		t.Errorf("%s %s: Valid %v (%v) with the shortcut, %v (%v) without", p.name, source.AppendJSON(nil, v), fv, ferr, pv, perr)
	}
	fe, _ := p.fast.Validate(v)
	pe, _ := p.plain.Validate(v)
	if d := cmp.Diff(pe, fe, cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(Error{})); d != "" {
		t.Errorf("%s %s: errors differ (-without +with the shortcut):\n%s", p.name, source.AppendJSON(nil, v), d)
	}
}

// condPairs compiles an allOf of twelve conditionals on "kind" (one with an else, one
// testing a number: neither takes the shortcut; some requiring kind; one with a title) in
// draft-07, 2019-09 and 2020-12, with and without unevaluatedProperties.
func condPairs(t *testing.T) []condPair {
	var variants []string
	for i := 0; i < 12; i++ {
		test := fmt.Sprintf(`{"properties":{"kind":{"const":"k%d"}}}`, i)
		if i%3 == 1 {
			test = fmt.Sprintf(`{"properties":{"kind":{"const":"k%d"}},"required":["kind"]}`, i)
		}
		then := fmt.Sprintf(`{"properties":{"a%d":{"type":"integer"}},"required":["a%d"]}`, i, i)
		switch i {
		case 5:
			variants = append(variants, fmt.Sprintf(`{"if":%s,"then":%s,"else":{"required":["other"]}}`, test, then))
		case 7:
			variants = append(variants, fmt.Sprintf(`{"title":"seven","if":%s,"then":%s}`, test, then))
		case 9:
			variants = append(variants, `{"if":{"properties":{"kind":{"const":9}}},"then":{"required":["a9"]}}`)
		default:
			variants = append(variants, fmt.Sprintf(`{"if":%s,"then":%s}`, test, then))
		}
	}
	union := strings.Join(variants, ",")
	schemas := []struct{ name, text string }{
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","allOf":[` + union + `]}`},
		{"2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","allOf":[` + union + `]}`},
		{"2020-12 unevaluated", `{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"kind":true},"allOf":[` + union + `],"unevaluatedProperties":false}`},
		{"2019-09 unevaluated", `{"$schema":"https://json-schema.org/draft/2019-09/schema","allOf":[` + union + `],"unevaluatedProperties":{"type":"string"}}`},
	}
	var out []condPair
	for _, s := range schemas {
		p := condPair{name: s.name, fast: mustCompile(t, s.text), plain: mustCompile(t, s.text)}
		for _, sub := range p.plain.allOf {
			sub.cond = nil
		}
		out = append(out, p)
	}
	return out
}
