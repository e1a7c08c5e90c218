package schema

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/source"
)

func annotateText(t *testing.T, schemaText, inst string) (errs []Error, anns []string) {
	t.Helper()
	doc, err := source.ParseJSON("i.json", []byte(schemaText), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := compileInline(doc.Root, "https://jstk.test/annotate.json", &Options{Draft: Draft2020})
	if err != nil {
		t.Fatal(err)
	}
	iv, err := source.ParseJSON("i.json", []byte(inst), nil)
	if err != nil {
		t.Fatal(err)
	}
	errs, units, err := s.Annotate(context.Background(), iv.Root)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if u.Schema() == nil || !strings.HasSuffix(u.AbsoluteKeywordLocation, "/"+u.Keyword) {
			t.Errorf("unit %+v: no schema or a wrong absolute location", u)
		}
		anns = append(anns, u.InstanceLocation+" "+u.KeywordLocation+" "+string(u.Value))
	}
	sort.Strings(anns)
	return errs, anns
}

// The applicators' own annotations (2020-12 core, section 10) and the unknown keywords'.
func TestAnnotateApplicators(t *testing.T) {
	cases := []struct{ schema, inst, want string }{
		{`{"properties":{"a":true},"patternProperties":{"^b":true},"additionalProperties":true}`, `{"a":1,"bc":2,"z":3}`,
			` /additionalProperties ["z"]| /patternProperties ["bc"]| /properties ["a"]`},
		{`{"prefixItems":[true],"items":true}`, `[1,2]`, ` /items true| /prefixItems 0`},
		{`{"prefixItems":[true,true]}`, `[1]`, ` /prefixItems true`},
		{`{"contains":{"type":"string"}}`, `[1,"a","b"]`, ` /contains [1,2]`},
		{`{"unevaluatedProperties":true,"properties":{"a":true}}`, `{"a":1,"b":2}`, ` /properties ["a"]| /unevaluatedProperties ["b"]`},
		{`{"unevaluatedItems":true}`, `[1]`, ` /unevaluatedItems true`},
		{`{"x-note":{"k":1},"$comment":"no"}`, `1`, ` /x-note {"k":1}`},
		{`{"propertyNames":{"title":"N"},"properties":{"a":{"title":"A"}}}`, `{"a":1}`, ` /properties ["a"]|/a /properties/a/title "A"`},
		{`{"anyOf":[{"type":"string","title":"S"},{"title":"T"}]}`, `1`, ` /anyOf/1/title "T"`},
		{`{"not":{"title":"N","type":"string"},"title":"R"}`, `1`, ` /title "R"`},
		{`{"title":"R","type":"string"}`, `1`, ``},
		{`{"$ref":"#/$defs/a","$defs":{"a":{"default":3}}}`, `1`, ` /$ref/default 3`},
	}
	for _, c := range cases {
		_, anns := annotateText(t, c.schema, c.inst)
		if got := strings.Join(anns, "|"); got != c.want {
			t.Errorf("%s on %s:\n got %s\nwant %s", c.schema, c.inst, got, c.want)
		}
	}
}

// A failing instance has its errors, as Validate finds them, and no annotation.
func TestAnnotateInvalid(t *testing.T) {
	errs, anns := annotateText(t, `{"title":"T","properties":{"a":{"type":"string"}}}`, `{"a":1}`)
	if len(errs) != 1 || errs[0].KeywordLocation != "/properties/a/type" || len(anns) != 0 {
		t.Errorf("got %v and %v", errs, anns)
	}
}

// Alternatives nested in alternatives that fail are evaluated once per value, not
// exponentially often, when annotations are collected too (2^40 evaluations otherwise; the
// deadline turns a regression into a failure rather than a hang). As in boolean mode, the
// values remembered are arrays and objects (source.Value.Identity).
func TestAnnotateNestedAlternatives(t *testing.T) {
	defs := `"d0":{"required":["b"]}`
	for i := 1; i <= 40; i++ {
		defs += fmt.Sprintf(`,"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i-1, i-1)
	}
	sch := `{"$defs":{` + defs + `},"anyOf":[{"$ref":"#/$defs/d40"},{"title":"T"}]}`
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	doc, err := source.ParseJSON("s.json", []byte(sch), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := compileInline(doc.Root, "https://jstk.test/nested.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	errs, anns, err := s.Annotate(ctx, parse(t, `{"a":1}`).Root)
	if err != nil || len(errs) != 0 || len(anns) != 1 || anns[0].KeywordLocation != "/anyOf/1/title" {
		t.Fatalf("got %v %v %v", errs, anns, err)
	}
}
