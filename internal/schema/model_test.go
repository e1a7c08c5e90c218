package schema

import (
	"io/fs"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jstk-dev/jstk/internal/source"
)

// The table is well formed: in each draft a name has at most one entry, and every field
// holds one of its values.
func TestKeywordTableWellFormed(t *testing.T) {
	t.Parallel()
	for _, d := range append([]*Draft{OpenAPI30}, Drafts...) {
		seen := map[string]bool{}
		for _, k := range Keywords() {
			if !k.Drafts.Has(d) {
				continue
			}
			if seen[k.Name] {
				t.Errorf("%s has two entries for %s", d, k.Name)
			}
			seen[k.Name] = true
		}
	}
	for _, k := range Keywords() {
		switch {
		case k.Name == "" || k.Kind.String() == "unknown" || k.Support < Defined || k.Support > OpenAPI:
			t.Errorf("%+v: empty name, kind or support", k)
		case k.Drafts == 0 || k.Drafts&^AllDrafts != 0 && k.Drafts != InOpenAPI30:
			t.Errorf("%s: drafts %b", k.Name, k.Drafts)
		case (k.Drafts == InOpenAPI30) != (k.Support == OpenAPI):
			t.Errorf("%s: OpenAPI 3.0's own keywords, and only they, have Support OpenAPI", k.Name)
		case (k.Anchor != NoAnchor) != (k.Kind == Identifier && strings.Contains(k.Name, "nchor")):
			t.Errorf("%s: a %s with anchor kind %d", k.Name, k.Kind, k.Anchor)
		case k.Types == 0 || k.Types&^TypeAll != 0:
			t.Errorf("%s: types %b", k.Name, k.Types)
		case k.Shape > DepsMap:
			t.Errorf("%s: shape %d", k.Name, k.Shape)
		case (k.Shape != NoSchema) != (k.Kind == Applicator || k.Name == "contentSchema" || k.Kind == Core && k.Shape == SchemaMap):
			t.Errorf("%s: a %s with shape %d", k.Name, k.Kind, k.Shape)
		case k.OnRequest && k.Kind != Annotation:
			t.Errorf("%s: only annotations assert on request", k.Name)
		case k.Fails && k.Kind != Assertion && k.Kind != Applicator && !k.OnRequest:
			t.Errorf("%s: a %s cannot fail", k.Name, k.Kind)
		}
	}
}

// metaProperties lists, by draft, the properties the embedded meta-schemas give (for
// 2019-09 and later, each with the vocabulary of its file; "core", "meta-data" and the
// dialect's own schema.json stand for "").
func metaProperties(t *testing.T) map[*Draft]map[string][]string {
	t.Helper()
	out := map[*Draft]map[string][]string{}
	add := func(d *Draft, file, vocab string) {
		data, err := metaFS.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := source.ParseJSON(file, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		props, _ := doc.Root.Get("properties")
		if out[d] == nil {
			out[d] = map[string][]string{}
		}
		for i := 0; i < props.Len(); i++ {
			out[d][props.Key(i)] = append(out[d][props.Key(i)], vocab)
		}
	}
	add(Draft4, "metaschemas/draft-04/schema.json", "")
	add(Draft6, "metaschemas/draft-06/schema.json", "")
	add(Draft7, "metaschemas/draft-07/schema.json", "")
	for _, d := range []*Draft{Draft2019, Draft2020} {
		dir := "metaschemas/draft/" + d.Name
		add(d, dir+"/schema.json", "")
		files, err := fs.Glob(metaFS, dir+"/meta/*.json")
		if err != nil || len(files) == 0 {
			t.Fatalf("no vocabulary meta-schemas in %s: %v", dir, err)
		}
		for _, f := range files {
			v := strings.TrimSuffix(path.Base(f), ".json")
			if v == "core" || v == "meta-data" {
				v = ""
			}
			add(d, f, v)
		}
	}
	return out
}

// The model agrees with the meta-schemas jstk embeds: each draft's meta-schemas describe
// exactly the keywords the model says jstk reads as the draft's own (Defined, Conventional
// or Compatible), and for 2019-09 and later each keyword belongs to the vocabulary whose
// meta-schema describes it.
func TestKeywordTableMatchesMetaSchemas(t *testing.T) {
	t.Parallel()
	// The meta-schema of 2020-12 still describes $recursiveAnchor and $recursiveRef, for
	// schemas moving from 2019-09; jstk does not read them in 2020-12.
	notRead := map[*Draft][]string{Draft2020: {"$recursiveAnchor", "$recursiveRef"}}
	meta := metaProperties(t)
	// The embedded draft-06 meta-schema does not describe examples, which the draft-06
	// validation specification defines (section 7.4) and later copies of that meta-schema
	// describe.
	meta[Draft6]["examples"] = []string{""}
	for _, d := range Drafts {
		var want, got []string
		for name := range meta[d] {
			want = append(want, name)
		}
		want = slicesWithout(want, notRead[d])
		for _, k := range Keywords() {
			if k.Drafts.Has(d) && k.Support != PointerOnly && k.Support != Lenient {
				got = append(got, k.Name)
				vocabs := meta[d][k.Name]
				if d.Version >= 2019 && len(vocabs) > 0 && !strings.Contains(strings.Join(vocabs, " "), k.Vocab) {
					t.Errorf("%s %s: vocabulary %q, the meta-schemas say %q", d, k.Name, k.Vocab, vocabs)
				}
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the model's keywords (+) against the meta-schemas' (-):\n%s", d, diff)
		}
	}
}

// The OpenAPI 3.0 dialect is draft 4's keywords with the entries of Support OpenAPI: the
// properties of the meta-schema jstk embeds for it that draft 4's does not describe.
func TestKeywordTableOpenAPI30(t *testing.T) {
	t.Parallel()
	data, err := metaFS.ReadFile("metaschemas/oas/3.0/dialect.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := source.ParseJSON("dialect.json", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	props, _ := doc.Root.Get("properties")
	var want []string
	for i := 0; i < props.Len(); i++ {
		if _, ok := Draft4.Keyword(props.Key(i)); !ok {
			want = append(want, props.Key(i))
		}
	}
	got := KeywordNames(InOpenAPI30, func(k *Keyword) bool { return k.Support == OpenAPI })
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("OpenAPI 3.0's own keywords (+) against its meta-schema's (-):\n%s", diff)
	}
	for _, name := range got {
		k, ok := OpenAPI30.Keyword(name)
		if !ok || k.Support != OpenAPI || OpenAPI30.Defines(name) || Draft2020.Defines(name) != (name != "nullable" &&
			name != "discriminator" && name != "xml" && name != "externalDocs" && name != "example") {
			t.Errorf("OpenAPI30.Keyword(%q) = %+v, %v; Defines %v", name, k, ok, OpenAPI30.Defines(name))
		}
	}
	for _, k := range Keywords() {
		if k.Drafts.Has(Draft4) {
			if e, ok := OpenAPI30.Keyword(k.Name); !ok || *e != k {
				t.Errorf("OpenAPI 3.0 does not read draft 4's %s as draft 4 does", k.Name)
			}
		}
	}
	if !InDraft4.Has(OpenAPI30) || !InOpenAPI30.Has(OpenAPI30) || InOpenAPI30.Has(Draft4) || len(InOpenAPI30.Drafts()) != 0 {
		t.Error("DraftSet.Has and Drafts of OpenAPI 3.0")
	}
}

// The identifier and anchor keywords of each draft.
func TestIdentifiersAndAnchors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d           *Draft
		identifiers []string
		anchors     []string
	}{
		{Draft4, []string{"id"}, nil},
		{OpenAPI30, []string{"id"}, nil},
		{Draft6, []string{"$id"}, nil},
		{Draft7, []string{"$id"}, nil},
		{Draft2019, []string{"$id", "$anchor", "$recursiveAnchor"}, []string{"$anchor"}},
		{Draft2020, []string{"$id", "$anchor", "$dynamicAnchor"}, []string{"$anchor", "$dynamicAnchor"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.identifiers, tt.d.Identifiers()); diff != "" {
			t.Errorf("%s.Identifiers: %s", tt.d, diff)
		}
		if diff := cmp.Diff(tt.anchors, tt.d.Anchors()); diff != "" {
			t.Errorf("%s.Anchors: %s", tt.d, diff)
		}
	}
	for _, tt := range []struct {
		d    *Draft
		kind AnchorKind
		want string
	}{
		{Draft2020, DynamicAnchor, "$dynamicAnchor"}, {Draft2019, DynamicAnchor, ""},
		{Draft2019, RecursiveAnchor, "$recursiveAnchor"}, {Draft2020, RecursiveAnchor, ""},
		{Draft2019, PlainAnchor, "$anchor"}, {Draft7, PlainAnchor, ""}, {Draft2020, NoAnchor, ""},
	} {
		if got := tt.d.AnchorKeyword(tt.kind); got != tt.want {
			t.Errorf("%s.AnchorKeyword(%d) = %q, want %q", tt.d, tt.kind, got, tt.want)
		}
	}
	for _, tt := range []struct {
		d        *Draft
		id, defs string
	}{
		{Draft4, "id", "definitions"}, {OpenAPI30, "", "definitions"}, {Draft6, "$id", "definitions"},
		{Draft7, "$id", "definitions"}, {Draft2019, "$id", "$defs"}, {Draft2020, "$id", "$defs"},
	} {
		if tt.d.IDKeyword() != tt.id || tt.d.DefinitionsKeyword() != tt.defs {
			t.Errorf("%s: IDKeyword %q, DefinitionsKeyword %q; want %q, %q", tt.d, tt.d.IDKeyword(), tt.d.DefinitionsKeyword(), tt.id, tt.defs)
		}
	}
	if diff := cmp.Diff([]string{"$id", "id"}, BaseURIKeywords()); diff != "" {
		t.Errorf("BaseURIKeywords: %s", diff)
	}
	if diff := cmp.Diff([]string{"$defs", "definitions"}, DefinitionsKeywords()); diff != "" {
		t.Errorf("DefinitionsKeywords: %s", diff)
	}
	got := KeywordNames(AllDrafts, func(k *Keyword) bool { return k.Kind == Identifier })
	if diff := cmp.Diff([]string{"id", "$id", "$anchor", "$recursiveAnchor", "$dynamicAnchor"}, got); diff != "" {
		t.Errorf("KeywordNames of the identifiers: %s", diff)
	}
}

func slicesWithout(s, drop []string) []string {
	var out []string
	for _, x := range s {
		if !strings.Contains(" "+strings.Join(drop, " ")+" ", " "+x+" ") {
			out = append(out, x)
		}
	}
	return out
}

func TestKeywordLookups(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d       *Draft
		name    string
		ok      bool
		support Support
		defines bool
	}{
		{Draft4, "const", true, Lenient, false},
		{Draft6, "const", true, Defined, true},
		{OpenAPI30, "id", true, Defined, true},
		{Draft7, "$defs", true, PointerOnly, false},
		{Draft2019, "definitions", true, Conventional, true},
		{Draft2019, "dependencies", true, Compatible, false},
		{Draft2020, "additionalItems", false, 0, false},
		{Draft2020, "x-foo", false, 0, false},
	}
	for _, tt := range tests {
		k, ok := tt.d.Keyword(tt.name)
		if ok != tt.ok || ok && k.Support != tt.support || tt.d.Defines(tt.name) != tt.defines {
			t.Errorf("%s.Keyword(%q) = %+v, %v; Defines %v", tt.d, tt.name, k, ok, tt.d.Defines(tt.name))
		}
	}
	for _, d := range Drafts {
		var refs []string
		for _, k := range Keywords() {
			if k.Drafts.Has(d) && k.Kind == Reference {
				refs = append(refs, k.Name)
			}
		}
		if diff := cmp.Diff(refs, d.RefKeywords()); diff != "" {
			t.Errorf("%s.RefKeywords: %s", d, diff)
		}
	}
	if got := (InDraft6 | InDraft2020).Drafts(); len(got) != 2 || got[0] != Draft6 || got[1] != Draft2020 {
		t.Errorf("Drafts() = %v", got)
	}
	if Kind(0).String() != "unknown" || Applicator.String() != "applicator" || Core.String() != "core" {
		t.Error("Kind.String")
	}
}

func TestTypeSet(t *testing.T) {
	t.Parallel()
	names := map[TypeSet]string{
		0: "nothing", TypeString: "string", TypeNumber | TypeNull: "null or number",
		TypeInteger: "integer", TypeInteger | TypeDotted: "integer", TypeFraction: "non-integer number",
		TypeDotted | TypeFraction: "non-integer number", TypeDotted: "integer written with a decimal point",
		TypeInteger | TypeFraction | TypeString: "integer, string or non-integer number",
		TypeString | TypeArray | TypeObject:     "string, array or object", TypeAll: "null, boolean, number, string, array or object",
	}
	for ts, want := range names {
		if got := ts.String(); got != want {
			t.Errorf("%08b.String() = %q, want %q", ts, got, want)
		}
	}
	for lit, want := range map[string]TypeSet{"1": TypeInteger, "-0": TypeInteger, "1e2": TypeInteger, "1.5e1": TypeInteger,
		"1.0": TypeDotted, "1.5": TypeFraction, "1e-2": TypeFraction} {
		if got := TypeOf(source.NumberValue(lit)); got != want {
			t.Errorf("TypeOf(%s) = %08b, want %08b", lit, got, want)
		}
	}
	for v, want := range map[string]TypeSet{`null`: TypeNull, `true`: TypeBoolean, `"x"`: TypeString, `[]`: TypeArray, `{}`: TypeObject} {
		doc, err := source.ParseJSON("v", []byte(v), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := TypeOf(doc.Root); got != want {
			t.Errorf("TypeOf(%s) = %08b, want %08b", v, got, want)
		}
	}
	if TypeOf(source.Value{}) != 0 || TypeByName("float", Draft7) != 0 {
		t.Error("TypeOf of nothing, TypeByName of no type")
	}
	if TypeByName("integer", Draft4) != TypeInteger || TypeByName("integer", Draft6) != TypeInteger|TypeDotted ||
		TypeByName("integer", OpenAPI30) != TypeInteger {
		t.Error("integer: without 1.0 in draft 4 and OpenAPI 3.0, with it after")
	}
	for _, n := range []string{"null", "boolean", "number", "string", "array", "object"} {
		if TypeByName(n, Draft2020) == 0 || TypeByName(n, Draft2020).String() != n {
			t.Errorf("TypeByName(%q) = %v", n, TypeByName(n, Draft2020))
		}
	}
}

// The compiler's table of handlers names each keyword once, names only keywords of the
// model, and has a handler for every keyword of the model that acts on instances
// (identifiers are read when documents are indexed, core keywords and plain annotations
// are not compiled; OpenAPI 3.0's nullable is read by type's handler, which it extends).
func TestCompilerTable(t *testing.T) {
	t.Parallel()
	handled := map[string]bool{}
	for _, h := range compilerTable() {
		if h.compile == nil || len(h.keywords) == 0 {
			t.Errorf("handler of %v is incomplete", h.keywords)
		}
		for _, kw := range h.keywords {
			if handled[kw] {
				t.Errorf("%s has two handlers", kw)
			}
			handled[kw] = true
		}
	}
	inModel := map[string]bool{}
	for _, k := range Keywords() {
		inModel[k.Name] = true
		compiled := k.Kind == Applicator || k.Kind == Assertion || k.Kind == Reference ||
			k.Kind == Annotation && (k.OnRequest || k.Shape != NoSchema)
		if k.Name == "nullable" {
			compiled = false
		}
		if compiled != handled[k.Name] {
			t.Errorf("%s (%s): compiled %v, has a handler %v", k.Name, k.Kind, compiled, handled[k.Name])
		}
	}
	for kw := range handled {
		if !inModel[kw] {
			t.Errorf("handler of %s, which the model does not know", kw)
		}
	}
}
