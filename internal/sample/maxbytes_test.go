package sample

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMaxBytes: with a size bound, generation stops at the first instance that would pass
// it; that instance is not kept, and the result and its text say how many were left out.
func TestMaxBytes(t *testing.T) {
	s := compileText(t, `{"type": "string", "minLength": 1000, "maxLength": 1000}`, nil)
	tests := []struct {
		count, maxBytes, kept, omitted int
		text                           string
	}{
		{5, 0, 5, 0, ""},
		{5, 100000, 5, 0, ""},
		{5, 2500, 2, 3, "sample: 2 of 5 instances given: instance 3 is 1002 bytes, more than the 494 bytes this answer has left for instances; ask for fewer\n"},
		{5, 500, 0, 5, "sample: 0 of 5 instances given: instance 1 is 1002 bytes, more than the 500 bytes this answer has left for instances; a run without a size bound (the command line) gives it\n"},
	}
	for _, tc := range tests {
		res, err := Generate(context.Background(), s, &Options{Count: tc.count, MaxBytes: tc.maxBytes})
		if err != nil {
			t.Fatal(err)
		}
		got := struct{ Kept, Values, Omitted int }{len(res.Samples), len(res.Values()), res.Omitted}
		if diff := cmp.Diff(struct{ Kept, Values, Omitted int }{tc.kept, tc.kept, tc.omitted}, got); diff != "" {
			t.Errorf("count %d, max %d (-want +got):\n%s", tc.count, tc.maxBytes, diff)
		}
		var buf bytes.Buffer
		if err := res.WriteText(&buf); err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(buf.String(), "\n")
		if last := lines[len(lines)-2]; tc.text != "" && last != tc.text {
			t.Errorf("count %d, max %d: last line %q, want %q", tc.count, tc.maxBytes, last, tc.text)
		}
		if tc.text == "" && strings.Contains(buf.String(), "instances given") {
			t.Errorf("count %d, max %d: a note without a cut: %q", tc.count, tc.maxBytes, buf.String())
		}
	}
}
