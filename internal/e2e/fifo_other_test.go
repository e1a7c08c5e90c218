//go:build !unix

package e2e

import "errors"

// makeFIFO: named pipes are a Unix matter.
func makeFIFO(string) error { return errors.ErrUnsupported }
