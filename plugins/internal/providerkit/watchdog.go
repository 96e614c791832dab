package providerkit

import (
	"context"
	"sync"
	"time"

	"github.com/harness-agent/harness/sdk"
)

// Watchdog enforces the first-token and idle deadlines of one stream.
// Only data events reset it: keep-alive comments do not count, so a server
// that sends nothing but ": keep-alive" still times out.
type Watchdog struct {
	firstToken, idle time.Duration
	cancel           func()

	mu      sync.Mutex
	timer   *time.Timer
	gotData bool
	fired   string // which deadline fired: "" while none has
}

// StartWatchdog arms the first-token deadline; cancel aborts the request.
func StartWatchdog(firstToken, idle time.Duration, cancel func()) *Watchdog {
	w := &Watchdog{firstToken: firstToken, idle: idle, cancel: cancel}
	// The lock keeps a timer that fires at once (a tiny deadline, a
	// descheduled goroutine) from reading w.timer before it is set.
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer = time.AfterFunc(firstToken, w.fire)
	return w
}

func (w *Watchdog) fire() {
	w.mu.Lock()
	if w.fired == "" && w.timer != nil {
		if w.gotData {
			w.fired = "idle"
		} else {
			w.fired = "first token"
		}
	}
	w.mu.Unlock()
	w.cancel()
}

// DataEvent records a data event and re-arms the idle deadline. It does
// nothing once a deadline has fired: the request is being torn down.
func (w *Watchdog) DataEvent() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fired != "" || w.timer == nil {
		return
	}
	w.gotData = true
	w.timer.Reset(w.idle)
}

// Stop disarms the watchdog.
func (w *Watchdog) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer.Stop()
	w.timer = nil
}

// Fired returns "first token" or "idle" when a deadline ended the
// stream, else "".
func (w *Watchdog) Fired() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

// Failure classifies a transport error of the stream the watchdog guards:
// a deadline it fired (timeout), the caller's cancellation of parent
// (canceled), or else kind. name prefixes the message ("deepseek"), doing
// says what failed, and uncounted what did not reset the deadlines
// ("3 keep-alive comments").
func (w *Watchdog) Failure(parent context.Context, err error, kind sdk.ErrorKind, name, doing, uncounted string) error {
	switch w.Fired() {
	case "first token":
		return sdk.Errorf(sdk.KindTimeout, "%s: no data within %s of sending the request (timeout_first_token; %s do not count)", name, w.firstToken, uncounted)
	case "idle":
		return sdk.Errorf(sdk.KindTimeout, "%s: no data for %s in the middle of the stream (timeout_idle; %s do not count)", name, w.idle, uncounted)
	}
	if parent.Err() != nil {
		return &sdk.Error{Kind: sdk.KindCanceled, Message: name + ": canceled while " + doing}
	}
	return sdk.Errorf(kind, "%s: %s: %v", name, doing, err)
}
