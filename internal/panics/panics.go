// Package panics carries a panic out of a worker goroutine to the goroutine that waits for
// the workers. A panic on a goroutine of its own ends the process, whatever recovers
// further up: the MCP server answers a tool's panic as an error and keeps serving only
// when the panic reaches the tool's own goroutine. Workers run their work through a
// Catcher, which keeps the first panic and lets the pool drain; the waiting goroutine
// calls Repanic once the workers are done.
package panics

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// A Catcher keeps the first panic of the work it runs. Its zero value is ready; it is safe
// for concurrent use.
type Catcher struct {
	mu     sync.Mutex
	caught *Error
	raised bool
}

// Error is a panic caught on one goroutine, to be raised again on another.
type Error struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the stack of the goroutine that panicked.
	Stack []byte
}

func (e *Error) Error() string { return fmt.Sprintf("%v", e.Value) }

// Do runs fn. If fn panics, Do recovers, keeps the panic when it is the first, and
// reports false.
func (c *Catcher) Do(fn func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			c.mu.Lock()
			if c.caught == nil {
				c.caught = &Error{Value: r, Stack: debug.Stack()}
			}
			c.mu.Unlock()
			ok = false
		}
	}()
	fn()
	return true
}

// Repanic panics with the first caught panic, as an *Error, the first time it is called
// after one was caught; otherwise it does nothing.
func (c *Catcher) Repanic() {
	c.mu.Lock()
	e := c.caught
	if e == nil || c.raised {
		c.mu.Unlock()
		return
	}
	c.raised = true
	c.mu.Unlock()
	panic(e)
}
