package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// docInputs turns every kind of document argument into engine inputs, as its options say.
func TestDocInputs(t *testing.T) {
	fsys := workspace.Memory(map[string]string{"d/a.json": "{}", "d/jstk.json": "{}", "d/b.yaml": "x: 1", "d/c.txt": "no"})
	stdin := strings.NewReader("{}")
	docs := []Doc{PathDoc("d"), PathDoc("-"), {Value: jsonValue(`1`)}, {Text: "2"}}
	for _, tc := range []struct {
		name    string
		o       docOptions
		docs    []Doc
		want    []docInput
		bad     []string // the paths of the problems
		wantErr string
	}{
		{name: "stream", o: docOptions{exts: instanceExts, stream: true}, docs: docs, want: []docInput{
			{Name: "d/a.json", ParseName: "d/a.json", Path: "d/a.json", Expanded: true},
			{Name: "d/b.yaml", ParseName: "d/b.yaml", Path: "d/b.yaml", Expanded: true},
			{Name: "d/jstk.json", ParseName: "d/jstk.json", Path: "d/jstk.json", Expanded: true},
			{Name: "-", ParseName: "-", Reader: stdin},
			{Name: "<in[2]>", ParseName: "<in[2]>.json", Text: []byte("1")},
			{Name: "<in[3]>", ParseName: "<in[3]>", Text: []byte("2")},
		}},
		{name: "read stdin, skip the configuration", o: docOptions{exts: instanceExts, skipConfig: true}, docs: docs[:2], want: []docInput{
			{Name: "d/a.json", ParseName: "d/a.json", Path: "d/a.json", Expanded: true},
			{Name: "d/b.yaml", ParseName: "d/b.yaml", Path: "d/b.yaml", Expanded: true},
			{Name: "-", ParseName: "-", Text: []byte("{}")},
		}},
		{name: "a file given by name is kept", o: docOptions{exts: instanceExts, skipConfig: true}, docs: []Doc{PathDoc("d/jstk.json")},
			want: []docInput{{Name: "d/jstk.json", ParseName: "d/jstk.json", Path: "d/jstk.json"}}},
		{name: "lenient", o: docOptions{exts: instanceExts, lenient: true}, docs: []Doc{PathDoc("none/*.json"), PathDoc("d/a.json")},
			want: []docInput{{Name: "d/a.json", ParseName: "d/a.json", Path: "d/a.json"}}, bad: []string{"none/*.json"}},
		{name: "strict", o: docOptions{exts: instanceExts}, docs: []Doc{PathDoc("d/a.json"), PathDoc("none.json")}, wantErr: "none.json"},
		{name: "two fields", o: docOptions{}, docs: []Doc{{Path: "a", Text: "1"}}, wantErr: "in[0]: give exactly one of path, value or text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdin.Reset("{}")
			env := &Env{FS: fsys, Stdin: stdin}
			got, bad, err := docInputs(env, tc.docs, "in", tc.o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b *strings.Reader) bool { return a == b })); diff != "" {
				t.Errorf("inputs (-want +got):\n%s", diff)
			}
			var paths []string
			for _, p := range bad {
				paths = append(paths, p.Path)
			}
			if diff := cmp.Diff(tc.bad, paths); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := docInputs(&Env{FS: fsys}, []Doc{PathDoc("-")}, "in", docOptions{stream: true}); err == nil {
		t.Error("standard input where there is none was accepted")
	}
}
