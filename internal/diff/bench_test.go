package diff

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
)

// Benchmarks over schema-pairs (go test ./internal/diff -run '^$' -bench . -benchtime 5x).
// Compilation is outside the measured loop except in BenchmarkPairsEndToEnd.

type compiledPair struct {
	name     string
	old, new *schema.Schema
}

func compiledPairs(b *testing.B) []compiledPair {
	fsys, loader := pairsLoader(b)
	var out []compiledPair
	for _, name := range pairNames(b) {
		old, new, err := compilePair(fsys, loader, name)
		if err == nil {
			out = append(out, compiledPair{name, old, new})
		}
	}
	return out
}

// largestPair is the pair with the most bytes.
func largestPair(b *testing.B) string {
	dir := corporaPairsDir(b)
	best, size := "", int64(0)
	for _, name := range pairNames(b) {
		var n int64
		for _, side := range []string{"old.json", "new.json"} {
			if fi, err := os.Stat(filepath.Join(dir, name, side)); err == nil {
				n += fi.Size()
			}
		}
		if n > size {
			best, size = name, n
		}
	}
	return best
}

func corporaPairsDir(b *testing.B) string {
	fsys, _ := pairsLoader(b)
	return fsys.Abs("schema-pairs")
}

func BenchmarkLargestPair(b *testing.B) {
	fsys, loader := pairsLoader(b)
	name := largestPair(b)
	old, new, err := compilePair(fsys, loader, name)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("largest pair: %s", name)
	for b.Loop() {
		if _, err := Compare(context.Background(), old, new, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPairs compares every compilable pair, on as many goroutines as GOMAXPROCS.
func BenchmarkPairs(b *testing.B) {
	pairs := compiledPairs(b)
	for b.Loop() {
		comparePairs(b, pairs, runtime.GOMAXPROCS(0))
	}
}

// BenchmarkPairsEndToEnd compiles and compares every pair, on GOMAXPROCS goroutines.
func BenchmarkPairsEndToEnd(b *testing.B) {
	fsys, loader := pairsLoader(b)
	names := pairNames(b)
	for b.Loop() {
		work := make(chan string)
		var wg sync.WaitGroup
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for name := range work {
					old, new, err := compilePair(fsys, loader, name)
					if err != nil {
						continue
					}
					if _, err := Compare(context.Background(), old, new, nil); err != nil {
						b.Error(err)
					}
				}
			}()
		}
		for _, n := range names {
			work <- n
		}
		close(work)
		wg.Wait()
	}
}

func comparePairs(b *testing.B, pairs []compiledPair, workers int) {
	work := make(chan compiledPair)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				if _, err := Compare(context.Background(), p.old, p.new, nil); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for _, p := range pairs {
		work <- p
	}
	close(work)
	wg.Wait()
}

// BenchmarkCompatCorpus compares the 460 cases of the compat corpus.
func BenchmarkCompatCorpus(b *testing.B) {
	dir := corporaCompatDir(b)
	var pairs []compiledPair
	for _, f := range []string{"confluent-cases.json", "sentry-cases.json", "oasdiff-cases.json"} {
		for _, c := range loadCases(b, filepath.Join(dir, f)) {
			old, err1 := compileCase(c.ID+"/old.json", c.Original, c.Dialect, false)
			new, err2 := compileCase(c.ID+"/new.json", c.Update, c.Dialect, false)
			if err1 == nil && err2 == nil {
				pairs = append(pairs, compiledPair{c.ID, old, new})
			}
		}
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].name < pairs[j].name })
	for b.Loop() {
		comparePairs(b, pairs, 1)
	}
}
