package validate

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/diag"
)

// A stream prints, instance by instance, exactly what diag.Write prints of the whole
// result, in every format it streams, with and without groups, a stop and instances.
func TestStreamEqualsWhole(t *testing.T) {
	t.Parallel()
	grouped := sample()
	var g grouper
	for i := range grouped.Instances {
		g.add(&grouped.Instances[i])
	}
	grouped.Groups = g.groups()
	stopped := sample()
	stopped.Stopped = "stopped after 1 s: the time limit"
	empty := &Result{Instances: []Instance{}, Valid: true}
	results := map[string]*Result{"sample": sample(), "grouped": grouped, "stopped": stopped, "empty": empty}
	for _, f := range []diag.Format{diag.Text, diag.JSON, diag.GitHub, diag.SARIF} {
		for name, r := range results {
			var want bytes.Buffer
			if err := diag.Write(&want, f, r, diag.Tool{Name: "jstk", Rules: Rules()}); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			st := NewStream(f, &got, diag.Tool{Name: "jstk"})
			for i := range r.Instances {
				st.Instance(&r.Instances[i])
			}
			rest := *r
			rest.Instances = nil
			if err := st.Finish(&rest); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("%s, %s: stream differs from whole (-whole +stream):\n%s", f, name, diff)
			}
		}
	}
	if NewStream("nope", nil, diag.Tool{}) != nil {
		t.Error("an unknown format streams")
	}
}

// A write error ends the stream's output and is returned by Finish.
func TestStreamWriteError(t *testing.T) {
	t.Parallel()
	for _, f := range []diag.Format{diag.Text, diag.JSON, diag.GitHub} {
		w := &failAfter{n: 1}
		st := NewStream(f, w, diag.Tool{})
		r := sample()
		for i := range r.Instances {
			st.Instance(&r.Instances[i])
		}
		if err := st.Finish(r); !errors.Is(err, errDiskFull) {
			t.Errorf("%s: Finish = %v, want %v", f, err, errDiskFull)
		}
	}
}
