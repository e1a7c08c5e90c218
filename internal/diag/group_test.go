package diag

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitMessage(t *testing.T) {
	tests := []struct {
		in       string
		literals []string
		values   []string
	}{
		{`"x-1" does not match the pattern "^O-[0-9]{3}$"`, []string{"", " does not match the pattern ", ""}, []string{`"x-1"`, `"^O-[0-9]{3}$"`}},
		{"-1 is less than the minimum 0", []string{"", " is less than the minimum ", ""}, []string{"-1", "0"}},
		{"1.5e-3 is not a multiple of 0.01", []string{"", " is not a multiple of ", ""}, []string{"1.5e-3", "0.01"}},
		{`not valid as draft 2020-12 or a3 "esc\"aped"`, []string{"not valid as draft 2020-12 or a3 ", ""}, []string{`"esc\"aped"`}},
		{`unterminated "quote`, []string{`unterminated "quote`}, nil},
		{"é 12é, 3", []string{"é 12é, ", ""}, []string{"3"}},
		{"/items/0/qty: 0 is less than 1 at 2024-01-02", []string{"/items/", "/qty: ", " is less than ", " at 2024-01-02"}, []string{"0", "0", "1"}},
	}
	for _, tt := range tests {
		literals, values := SplitMessage(tt.in)
		if diff := cmp.Diff(tt.literals, literals); diff != "" {
			t.Errorf("%q: literals (-want +got):\n%s", tt.in, diff)
		}
		if diff := cmp.Diff(tt.values, values); diff != "" {
			t.Errorf("%q: values (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestGroupDiagnostics(t *testing.T) {
	var ds []Diagnostic
	for i := range 5 {
		ds = append(ds, Diagnostic{Code: "lint/unknown-format", Severity: Warning, File: "a.json", Line: i + 3, Column: 5,
			Pointer: fmt.Sprintf("/properties/p%d/format", i), Message: fmt.Sprintf("format \"f-%d\" is not known", i)})
	}
	ds = append(ds,
		Diagnostic{Code: "lint/unknown-format", Severity: Warning, File: "b.json", Line: 1, Pointer: "/format", Message: `format "g" is not known`},
		Diagnostic{Code: "lint/empty-enum", Severity: Error, File: "a.json", Line: 9, Pointer: "/enum", Message: "an empty enum accepts nothing"},
		Diagnostic{Code: "lint/empty-enum", Severity: Error, File: "a.json", Line: 12, Pointer: "/enum", Message: "an empty enum accepts nothing"},
	)
	got := GroupDiagnostics(ds)
	want := []Group{
		{Count: 6, Code: "lint/unknown-format", Severity: Warning, Pointer: "/…", Message: `format "…" is not known`,
			First: []Location{{"a.json", 3, 5, "/properties/p0/format"}, {"a.json", 4, 5, "/properties/p1/format"}, {"a.json", 5, 5, "/properties/p2/format"}}},
		{Count: 2, Code: "lint/empty-enum", Severity: Error, Pointer: "/enum", Message: "an empty enum accepts nothing",
			First: []Location{{"a.json", 9, 0, "/enum"}, {"a.json", 12, 0, "/enum"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	var sb strings.Builder
	if err := WriteGroups(&sb, got); err != nil {
		t.Fatal(err)
	}
	wantText := `6 × lint/unknown-format at /…: format "…" is not known; first at a.json:3:5, a.json:4:5, a.json:5:5
2 × lint/empty-enum at /enum: an empty enum accepts nothing; first at a.json:9, a.json:12
`
	if diff := cmp.Diff(wantText, sb.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// TestGrouperBounds: at most MaxGroups groups are made; the findings of further kinds are
// one last group, and the text says so; at most TextGroups groups are printed.
func TestGrouperBounds(t *testing.T) {
	var ds []Diagnostic
	for i := range MaxGroups + 5 {
		for range 2 {
			ds = append(ds, Diagnostic{Code: fmt.Sprintf("x/rule-%d", i), Message: "m"})
		}
	}
	got := GroupDiagnostics(ds)
	last := got[len(got)-1]
	if len(got) != MaxGroups+1 || last.Count != 10 || last.Message != Overflow || last.Code != "" {
		t.Fatalf("%d groups, the last %+v", len(got), last)
	}
	var sb strings.Builder
	if err := WriteGroups(&sb, got); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(sb.String(), "\n"), "\n")
	tail := []string{fmt.Sprintf("(%d more groups of repeated findings)", MaxGroups-TextGroups),
		fmt.Sprintf("(10 findings not grouped: there are more than %d kinds)", MaxGroups)}
	if len(lines) != TextGroups+2 || cmp.Diff(tail, lines[TextGroups:]) != "" {
		t.Errorf("text: %d lines, ending %q", len(lines), lines[max(0, len(lines)-2):])
	}
	if (Location{Pointer: "/a"}).String() != "/a" || (Location{File: "f", Line: 2}).String() != "f:2" {
		t.Error("Location.String")
	}
}
