package tools

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/harness-agent/harness/sdk"
)

// Loop hygiene defaults (DESIGN §6).
const (
	DefaultRepeatLimit = 3  // the 3rd identical call is not executed
	DefaultStopLimit   = 10 // the 10th stops the run
)

// StopRepeatedCall is Outcome.StopRun when the loop guard stops the run.
const StopRepeatedCall = "repeated_call"

// repeats counts identical calls (tool + canonical arguments) over a session.
type repeats struct {
	mu     sync.Mutex
	counts map[string]int
}

func callKey(tool string, args json.RawMessage) string { return tool + "\x00" + string(args) }

// add counts one more call and returns how many there have been.
func (r *repeats) add(tool string, args json.RawMessage) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counts == nil {
		r.counts = map[string]int{}
	}
	k := callKey(tool, args)
	r.counts[k]++
	return r.counts[k]
}

// repeatedCall is the result of a call not executed because it repeats.
func repeatedCall(tool string, n int, stop bool) *sdk.Error {
	msg := fmt.Sprintf("%s: you already made this exact call (same tool, same arguments) %d times; it was not run again. "+
		"Use the result you already have, change the arguments, or do something else.", tool, n-1)
	if stop {
		msg = fmt.Sprintf("%s: this exact call was made %d times; the run stops here.", tool, n)
	}
	return &sdk.Error{Kind: sdk.KindRepeatedCall, Message: msg}
}
