package infer

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// BenchmarkRun infers a schema from 20,000 NDJSON lines held in memory.
func BenchmarkRun(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	var sb strings.Builder
	for range 20000 {
		sb.WriteString(randomDoc(r))
		sb.WriteString("\n")
	}
	fsys := workspace.Memory(map[string]string{"d.ndjson": sb.String()})
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		if _, err := Run(context.Background(), []Source{{Name: "d.ndjson", Path: "d.ndjson"}}, fsys, nil); err != nil {
			b.Fatal(err)
		}
	}
}
