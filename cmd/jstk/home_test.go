package main

import (
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// homes are pieces of knowledge that have one home: the one non-test Go file of the module
// that may write them. Everything else uses that file's name for them.
var homes = []struct {
	what string
	re   *regexp.Regexp
	home string
}{
	{"the name of the workspace configuration, jstk.json (catalog.ConfigFile)",
		regexp.MustCompile(`"jstk\.json"`), "internal/catalog/catalog.go"},
	{"the word for a count, \"1 schema\", \"2 schemas\" (diag.Plural, diag.PluralWord)",
		regexp.MustCompile(`^func (\([^)]*\) )?(?i:plural)\w*\(`), "internal/diag/page.go"},
}

// TestOneHome fails when a piece of knowledge of homes is written outside its home, or
// when its home no longer holds it.
func TestOneHome(t *testing.T) {
	t.Parallel()
	src := moduleSources(t, filepath.Join("..", ".."))
	for _, h := range homes {
		var found []string
		for p, s := range src {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			for i, line := range strings.Split(s, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "//") {
					continue
				}
				if h.re.MatchString(line) {
					found = append(found, p+":"+strconv.Itoa(i+1))
				}
			}
		}
		sort.Strings(found)
		home := 0
		for _, f := range found {
			if strings.HasPrefix(f, h.home+":") {
				home++
			} else {
				t.Errorf("%s: %s is written here; its home is %s", f, h.what, h.home)
			}
		}
		if home == 0 {
			t.Errorf("%s does not hold %s", h.home, h.what)
		}
	}
}
