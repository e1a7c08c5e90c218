package lint

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/golden"
)

// TestRuleDocs keeps docs/lint-rules.md equal to what the rule table generates
// (JSTK_UPDATE=1 or go generate ./internal/lint rewrites it).
func TestRuleDocs(t *testing.T) {
	golden.Check(t, "../../docs/lint-rules.md", string(Markdown()))
}

// TestPeerChecklist checks that every rule of the peer has a jstk rule covering it.
func TestPeerChecklist(t *testing.T) {
	loadRules()
	f, err := os.Open("testdata/peer-rules.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		name := strings.TrimSpace(sc.Text())
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		n++
		if _, ok := peerOf[name]; !ok {
			t.Errorf("peer rule %s is covered by no jstk rule", name)
		}
	}
	if n != 103 {
		t.Errorf("peer list has %d rules, want 103", n)
	}
	for p := range peerOf {
		if !strings.Contains(mustRead(t, "testdata/peer-rules.txt"), "\n"+p+"\n") {
			t.Errorf("rule table names peer rule %s, which the peer does not have", p)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
