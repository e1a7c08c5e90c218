// Package golden keeps the committed files that tests compare their output with: the
// stats of runs over the reference corpora, golden reports, and ledgers of known
// disagreements. With JSTK_UPDATE set, Check rewrites a file instead of comparing it.
package golden

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Updating reports whether the tests are asked to rewrite their golden files
// (JSTK_UPDATE set to anything).
func Updating() bool { return os.Getenv("JSTK_UPDATE") != "" }

// Check compares got with the committed file at path, and fails tb with both texts when
// they differ or the file is missing. When Updating, it writes got to path instead.
func Check(tb testing.TB, path, got string) {
	tb.Helper()
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Errorf("%s is missing; run with JSTK_UPDATE=1 to write it", path)
		return
	}
	if string(want) != got {
		tb.Errorf("%s is out of date (run with JSTK_UPDATE=1):\nwant:\n%s\ngot:\n%s", path, want, got)
	}
}

// Ledger reads a ledger of known failures or disagreements: lines "<id>\t<reason>", blank
// lines and lines starting with # left out. A missing file is an empty ledger; an entry
// without a reason fails tb.
func Ledger(tb testing.TB, path string) map[string]string {
	tb.Helper()
	m := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return m
		}
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(reason) == "" {
			tb.Fatalf("%s: every entry needs a reason after a tab: %q", path, line)
		}
		m[id] = reason
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return m
}
