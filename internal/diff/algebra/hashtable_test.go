package algebra

import (
	"sync"
	"testing"
)

// A hashTable returns what was stored for a key or nothing, never another key's hash;
// once full it stores nothing more.
func TestHashTable(t *testing.T) {
	tab := newHashTable(1000) // 1024 slots
	hashOf := func(k uint64) uint64 { return k*7919 | 1 }
	const n = 5000 // more keys than slots
	stored := 0
	put := map[uint64]bool{}
	for k := uint64(1); k <= n; k++ {
		put[k] = tab.put(k, hashOf(k))
	}
	for k := uint64(1); k <= n; k++ {
		h, ok := tab.get(k)
		if ok != put[k] {
			t.Fatalf("get(%d) found %v, but put said %v", k, ok, put[k])
		}
		if ok {
			stored++
			if h != hashOf(k) {
				t.Fatalf("get(%d) = %d, want %d", k, h, hashOf(k))
			}
		}
	}
	if stored < 900 || stored > 1024 {
		t.Errorf("%d keys stored in 1024 slots", stored)
	}
	if _, ok := tab.get(n + 1); ok {
		t.Error("a key never stored was found")
	}
}

// Two goroutines filling one table with the same keys (as the two engines do, with the
// same seed) read back only the right hashes (go test -race checks the accesses).
func TestHashTableShared(t *testing.T) {
	tab := newHashTable(4096)
	var wg sync.WaitGroup
	errs := make(chan uint64, 2)
	for g := range 2 {
		wg.Go(func() {
			for i := uint64(1); i <= 3000; i++ {
				k := i
				if g == 1 {
					k = 3001 - i // the other end first
				}
				if h, ok := tab.get(k); ok && h != k<<8|1 {
					errs <- k
					return
				}
				tab.put(k, k<<8|1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for k := range errs {
		t.Errorf("key %d: a wrong hash", k)
	}
	for k := uint64(1); k <= 3000; k++ {
		if h, ok := tab.get(k); !ok || h != k<<8|1 {
			t.Fatalf("get(%d) = %d, %v after both filled the table", k, h, ok)
		}
	}
}

// What a full shared table cannot hold goes to the engine's own map, so that every hash is
// still made once (a document with far more arrays and objects than schemas fills the
// table, and its values would otherwise be hashed again under each enclosing schema).
func TestValueHashesOverflow(t *testing.T) {
	m := valueHashes{shared: newHashTable(1), local: map[int]uint64{}} // 64 slots
	for k := 1; k <= 1000; k++ {
		m.put(k, uint64(k)<<8|1)
	}
	if len(m.local) == 0 || len(m.local) >= 1000 {
		t.Fatalf("%d of 1000 hashes in the map beside a 64-slot table", len(m.local))
	}
	for k := 1; k <= 1000; k++ {
		if h, ok := m.get(k); !ok || h != uint64(k)<<8|1 {
			t.Fatalf("get(%d) = %d, %v", k, h, ok)
		}
	}
}
