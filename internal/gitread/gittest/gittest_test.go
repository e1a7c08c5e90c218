package gittest

import (
	"context"
	"testing"

	"github.com/jstk-dev/jstk/internal/gitread"
)

func TestWrittenRepositoryReadsBack(t *testing.T) {
	w := New(t)
	c1 := w.Commit("one", map[string]string{"a/b.json": "1", "c.json": "2"})
	w.Commit("two", map[string]string{"a/b.json": "3", "c.json": "2"})
	w.Tag("v1", c1)
	r, err := gitread.Find(w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.Resolve("v1")
	if err != nil || h != c1 {
		t.Fatalf("v1 = %s %v", h, err)
	}
	head, _ := r.Resolve("HEAD")
	hist, err := r.History(context.Background(), head, "a/b.json", gitread.HistoryOptions{})
	if err != nil || len(hist.Versions) != 2 {
		t.Fatalf("%+v %v", hist, err)
	}
	if data, err := r.ReadFile(c1, "a/b.json"); err != nil || string(data) != "1" {
		t.Fatalf("%q %v", data, err)
	}
}
