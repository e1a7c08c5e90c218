package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/manifest"
)

// The build itself, twice, is checked by .ci/run (a second build from a fresh clone at
// another path with an empty build cache must give the same archive): it takes minutes.

func TestSelectPlatforms(t *testing.T) {
	all, err := selectPlatforms("")
	if err != nil || len(all) != len(manifest.Platforms) {
		t.Errorf("selectPlatforms(\"\") = %v, %v", all, err)
	}
	two, err := selectPlatforms("linux/amd64, windows/arm64")
	if err != nil || len(two) != 2 || two[1].Binary() != "jstk.exe" {
		t.Errorf("selectPlatforms = %v, %v", two, err)
	}
	if _, err := selectPlatforms("plan9/386"); err == nil || !strings.Contains(err.Error(), `unknown target "plan9/386"`) {
		t.Errorf("plan9/386: %v", err)
	}
}

func TestEmptyDir(t *testing.T) {
	dir := t.TempDir()
	if err := emptyDir(filepath.Join(dir, "new", "dist")); err != nil {
		t.Errorf("a new directory: %v", err)
	}
	if err := emptyDir(filepath.Join(dir, "new", "dist")); err != nil {
		t.Errorf("an empty directory: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new", "dist", "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := emptyDir(filepath.Join(dir, "new", "dist")); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("a directory with a file: %v", err)
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{"extra"}, {"-targets", "x/y"}, {"-verify", t.TempDir()}, {"-action-digests", t.TempDir()}} {
		if err := run(args); err == nil {
			t.Errorf("release %v: no error", args)
		}
	}
}
