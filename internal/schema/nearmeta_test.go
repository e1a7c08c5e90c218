package schema

import (
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// A misspelt draft URI in $schema is answered with the draft's URI; a URI far from every
// draft's is not, and a remote one says how to pin it.
func TestUnknownSchemaSuggestsTheDraft(t *testing.T) {
	for in, want := range map[string]string{
		"http://json-schema.org/draft-07/shema#":          `did you mean "http://json-schema.org/draft-07/schema#"?`,
		"https://json-schema.org/draft/2020-12/schemas":   `did you mean "https://json-schema.org/draft/2020-12/schema"?`,
		"http://json-schema.org/draft-04/schema-#":        `did you mean "http://json-schema.org/draft-04/schema#"?`,
		"https://example.com/meta/my-dialect.json":        `if it is a custom meta-schema, pin it in jstk.lock with "jstk fetch"`,
		"urn:example:not-a-draft-at-all-and-not-resolved": "not a supported draft",
	} {
		_, err := compileFiles(t, map[string]string{"s.json": `{"$schema": "` + in + `"}`}, "s.json", nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("$schema %s: %v\nwant it to say %s", in, err, want)
		}
	}
	if got := editDistance("kitten", "sitting", 10); got != 3 {
		t.Errorf("editDistance: %d", got)
	}
	if got := editDistance("a", "abcdefgh", 4); got != 4 {
		t.Errorf("editDistance bounded: %d", got)
	}
}

type oneRemote struct{ uri string }

func (r oneRemote) Open(uri string) ([]byte, string, bool, error) {
	if uri == r.uri {
		return []byte(`{}`), "store: x.json", true, nil
	}
	return nil, "", false, nil
}

// Offline says what answers a URI before the lock: jstk fetch downloads nothing else.
func TestOffline(t *testing.T) {
	l := &Loader{FS: workspace.Memory(map[string]string{"m.json": "{}"}), Resolve: map[string]string{"https://m.example/m.json": "m.json"},
		Remotes: []Remote{oneRemote{"https://store.example/x.json"}}}
	for uri, want := range map[string]string{
		"https://json-schema.org/draft/2020-12/schema#": "built-in meta-schema",
		"https://m.example/m.json":                      "resolve map",
		"https://store.example/x.json":                  "store: x.json",
		"https://elsewhere.example/y.json":              "",
	} {
		if got, ok := l.Offline(uri); got != want || ok != (want != "") {
			t.Errorf("Offline(%s) = %q, %v; want %q", uri, got, ok, want)
		}
	}
	if fetchHint("urn:x") != "" || !strings.Contains(fetchHint("http://a.example/x"), "--insecure-http") {
		t.Error("fetchHint")
	}
}
