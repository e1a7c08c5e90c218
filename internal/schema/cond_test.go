package schema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// An allOf of conditionals on one property's constant gives, with the shortcut, the
// verdicts and the errors of the evaluation as written, in every draft that has if, with
// and without unevaluatedProperties (which reads the annotations of the ifs that hold).
func TestCondShortcutAgrees(t *testing.T) {
	t.Parallel()
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
	schemas := map[string]string{
		"draft-07":            `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","allOf":[` + union + `]}`,
		"2020-12":             `{"$schema":"https://json-schema.org/draft/2020-12/schema","allOf":[` + union + `]}`,
		"2020-12 unevaluated": `{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"kind":true},"allOf":[` + union + `],"unevaluatedProperties":false}`,
		"2019-09 unevaluated": `{"$schema":"https://json-schema.org/draft/2019-09/schema","allOf":[` + union + `],"unevaluatedProperties":{"type":"string"}}`,
	}
	instances := []string{`{}`, `[]`, `"k1"`, `{"kind":1}`, `{"kind":9}`, `{"kind":null}`, `{"kind":"k\u0030","a0":1}`,
		`{"kind":"k12"}`, `{"kind":"k5","other":1}`, `{"a1":"x"}`, `{"kind":"k7","a7":"no"}`, `{"kind":"k9"}`, `{"kind":"k9","a9":1}`}
	for i := 0; i < 12; i++ {
		instances = append(instances, fmt.Sprintf(`{"kind":"k%d","a%d":%d}`, i, i, i), fmt.Sprintf(`{"kind":"k%d"}`, i),
			fmt.Sprintf(`{"kind":"k%d","a%d":1,"extra":2}`, i, i))
	}
	for name, text := range schemas {
		fast, plainS := mustCompile(t, text), mustCompile(t, text)
		n := 0
		for _, sub := range fast.allOf {
			if sub.cond != nil {
				n++
			}
		}
		if n != 10 { // all but the one with an else and the one with a number
			t.Errorf("%s: %d conditionals take the shortcut, want 10", name, n)
		}
		for _, sub := range plainS.allOf {
			sub.cond = nil
		}
		for _, inst := range instances {
			v := parse(t, inst).Root
			fv, ferr := fast.Valid(v)
			pv, perr := plainS.Valid(v)
			if fv != pv || (ferr == nil) != (perr == nil) {
				t.Errorf("%s %s: Valid %v (%v) with the shortcut, %v (%v) without", name, inst, fv, ferr, pv, perr)
			}
			fe, _ := fast.Validate(v)
			pe, _ := plainS.Validate(v)
			if d := cmp.Diff(pe, fe, cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(Error{})); d != "" {
				t.Errorf("%s %s: errors differ (-without +with the shortcut):\n%s", name, inst, d)
			}
		}
	}
}
