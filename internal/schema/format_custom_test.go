package schema

import (
	"errors"
	"testing"

	"github.com/jstk-dev/jstk/internal/source"
)

// A format of Options.Formats is asserted without AssertFormat, on values of every type,
// and replaces the built-in format of its name.
func TestCustomFormats(t *testing.T) {
	even := func(v source.Value) error {
		if v.Kind() != source.Number {
			return nil
		}
		if n := v.Num(); !n.IsInteger() || n.String()[len(n.String())-1]%2 != 0 {
			return errors.New("not even")
		}
		return nil
	}
	never := func(source.Value) error { return errors.New("refused") }
	doc, err := source.ParseJSON("s.json", []byte(`{"properties":{"n":{"format":"even"},"e":{"format":"email"},"d":{"format":"date"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := compileInline(doc.Root, "https://jstk.test/f.json", &Options{Formats: map[string]func(source.Value) error{"even": even, "email": never}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		inst  string
		valid bool
		msg   string
	}{
		{`{"n":4}`, true, ""},
		{`{"n":3}`, false, "3 is not a valid even: not even"},
		{`{"n":"x"}`, true, ""},
		{`{"e":"a@b.c"}`, false, `"a@b.c" is not a valid email: refused`},
		{`{"d":"not a date"}`, true, ""}, // built-in formats stay annotations
	} {
		errs, err := s.Validate(parse(t, c.inst).Root)
		if err != nil {
			t.Fatal(err)
		}
		if (len(errs) == 0) != c.valid || (!c.valid && errs[0].Message != c.msg) {
			t.Errorf("%s: got %v", c.inst, errs)
		}
	}
}
