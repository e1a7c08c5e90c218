package diff

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
)

func TestZZHeap(t *testing.T) {
	fsys, loader := pairsLoader(t)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	old, new, err := compilePair(fsys, loader, "utcm-monitor")
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	t.Logf("heap after compile: %.1f MB, schemas %d %d", float64(ms.HeapAlloc-base)/1e6, schema.CompiledCount(old), schema.CompiledCount(new))
	f, _ := os.Create("/tmp/zzheap.prof")
	pprof.WriteHeapProfile(f)
	f.Close()
	runtime.KeepAlive(old)
	runtime.KeepAlive(new)
}
