//go:build !unix

package cli

import "io"

// rawGuard is unused where pipes are not made non-blocking.
type rawGuard struct{}

// pipeIO: standard streams are used as they are where pipes are not made non-blocking.
func pipeIO(any, *rawGuard) (_ io.ReadWriter, restore func(), ok bool) { return nil, nil, false }

// rawWriter returns w.
func rawWriter(w io.Writer) io.Writer { return w }

// rawReader returns r.
func rawReader(r io.Reader) io.Reader { return r }
