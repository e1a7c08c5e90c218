// Package corpora locates the reference corpora that jstk's engines are checked against
// (../shared/corpora beside the repository) and decides what a test does when they are
// missing: skip with a clear message, or fail when JSTK_CORPORA=required.
package corpora

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the directory of the named corpus ("JSON-Schema-Test-Suite",
// "schemastore-dev", "compat", "schema-pairs"). When the corpora are absent it skips the
// test, or fails it when the environment variable JSTK_CORPORA is "required".
func Dir(t testing.TB, name string) string {
	t.Helper()
	root, ok := find()
	if ok {
		dir := filepath.Join(root, name)
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
	}
	msg := "corpus " + name + " not found at ../shared/corpora (beside the repository); " +
		"these tests check jstk against reference material and need it"
	if os.Getenv("JSTK_CORPORA") == "required" {
		t.Fatal(msg + " (JSTK_CORPORA=required)")
	}
	t.Skip(msg)
	return ""
}

// find walks up from the working directory to the module root and looks beside it.
func find() (string, bool) {
	if d := os.Getenv("JSTK_CORPORA_DIR"); d != "" {
		return d, true
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			c := filepath.Join(dir, "..", "shared", "corpora")
			_, err := os.Stat(c)
			return c, err == nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
