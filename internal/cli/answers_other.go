//go:build !linux

package cli

import (
	"errors"
	"os"
	"time"
)

// answerShare is Linux's alone (see answers_linux.go): elsewhere every answer is relayed
// by the server, and no share is ever made.
type answerShare struct{}

// answerDirectMax bounds an answer the engine writes itself (none here).
const answerDirectMax = 0

func newAnswerShare(any) *answerShare { return nil }

func openAnswerShare() (*answerShare, error) {
	return nil, errors.New("an engine answers the client itself only on Linux")
}

func (*answerShare) files() []*os.File             { return nil }
func (*answerShare) slot() int                     { return -1 }
func (*answerShare) isSent(int) bool               { return false }
func (*answerShare) release(int)                   {}
func (*answerShare) cancel(int) bool               { return true }
func (*answerShare) sent(int) (sent, isError bool) { return false, false }
func (*answerShare) lockForServer()                {}
func (*answerShare) unlockForServer()              {}
func (*answerShare) shut(time.Duration)            {}
func (*answerShare) dead(int)                      {}
func (*answerShare) write(int, []byte, bool) bool  { return false }
