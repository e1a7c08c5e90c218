package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, strings.SplitN(fmt.Sprintf(format, args...), "\n", 2)[0])
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
}

func (r *recorder) Fatal(args ...any) {
	r.errors = append(r.errors, "fatal")
	r.fatal = true
}

func TestCheck(t *testing.T) {
	t.Setenv("JSTK_UPDATE", "") // compare, even when the run rewrites golden files
	dir := t.TempDir()
	path := filepath.Join(dir, "stats.txt")
	if err := os.WriteFile(path, []byte("a 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, got string
		want      []string
	}{
		{path, "a 1\n", nil},
		{path, "a 2\n", []string{path + " is out of date (run with JSTK_UPDATE=1):"}},
		{filepath.Join(dir, "missing.txt"), "x", []string{filepath.Join(dir, "missing.txt") + " is missing; run with JSTK_UPDATE=1 to write it"}},
	} {
		r := &recorder{TB: t}
		Check(r, tc.path, tc.got)
		if diff := cmp.Diff(tc.want, r.errors); diff != "" {
			t.Errorf("Check(%s, %q) (-want +got):\n%s", tc.path, tc.got, diff)
		}
	}
	// Updating writes the file, creating its directory.
	t.Setenv("JSTK_UPDATE", "1")
	fresh := filepath.Join(dir, "sub", "new.txt")
	r := &recorder{TB: t}
	Check(r, fresh, "b 2\n")
	if b, err := os.ReadFile(fresh); err != nil || string(b) != "b 2\n" || r.errors != nil {
		t.Errorf("updating: %q %v %v", b, err, r.errors)
	}
	r = &recorder{TB: t}
	Check(r, filepath.Join(path, "under-a-file.txt"), "x")
	if !r.fatal {
		t.Error("a file that cannot be written is fatal")
	}
}

func TestLedger(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "ledger.txt")
	if err := os.WriteFile(good, []byte("# known\n\nsuite/a\twhy a\nsuite/b\twhy b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	if diff := cmp.Diff(map[string]string{"suite/a": "why a", "suite/b": "why b"}, Ledger(r, good)); diff != "" || r.errors != nil {
		t.Errorf("Ledger (-want +got):\n%s %v", diff, r.errors)
	}
	if got := Ledger(r, filepath.Join(dir, "none.txt")); len(got) != 0 {
		t.Errorf("a missing ledger is empty: %v", got)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("suite/c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = &recorder{TB: t}
	Ledger(r, bad)
	if !r.fatal || len(r.errors) != 1 || !strings.Contains(r.errors[0], "every entry needs a reason after a tab") {
		t.Errorf("an entry without a reason: %v", r.errors)
	}
	r = &recorder{TB: t}
	Ledger(r, dir) // a directory cannot be read as a ledger
	if !r.fatal {
		t.Error("an unreadable ledger is fatal")
	}
}
