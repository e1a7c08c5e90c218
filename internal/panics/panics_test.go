package panics

import (
	"strings"
	"sync"
	"testing"
)

func TestCatcher(t *testing.T) {
	var c Catcher
	if !c.Do(func() {}) {
		t.Fatal("work that does not panic is reported as panicked")
	}
	c.Repanic() // nothing caught: nothing raised

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.Do(func() {
				if i%2 == 1 {
					panic("worker failed")
				}
			}) == (i%2 == 1) {
				t.Errorf("worker %d: Do's report is wrong", i)
			}
		}()
	}
	wg.Wait()
	got := func() (r any) {
		defer func() { r = recover() }()
		c.Repanic()
		return nil
	}()
	e, ok := got.(*Error)
	if !ok || e.Value != "worker failed" || e.Error() != "worker failed" || !strings.Contains(string(e.Stack), "panics_test") {
		t.Fatalf("Repanic raised %#v", got)
	}
	c.Repanic() // raised once only
}
