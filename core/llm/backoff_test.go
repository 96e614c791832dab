package llm

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	p := DefaultRetryPolicy()
	for n, want := range map[int][2]time.Duration{1: {250 * time.Millisecond, 500 * time.Millisecond}, 2: {500 * time.Millisecond, time.Second}, 3: {time.Second, 2 * time.Second}} {
		if lo, hi := p.Backoff(n, 0, 0), p.Backoff(n, 0.999999, 0); lo != want[0] || hi < want[1]-time.Microsecond || hi > want[1] {
			t.Errorf("retry %d: equal jitter range [%s, %s], want [%s, %s)", n, lo, hi, want[0], want[1])
		}
	}
	p.Jitter = FullJitter
	if d := p.Backoff(3, 0.25, 0); d != 500*time.Millisecond {
		t.Errorf("full jitter: %s", d)
	}
	if d := p.Backoff(1, 0.5, 10*time.Second); d != 10*time.Second {
		t.Errorf("Retry-After not honoured: %s", d)
	}
	if d := p.Backoff(1, 0.5, 2*time.Hour); d != time.Minute {
		t.Errorf("Retry-After not capped: %s", d)
	}
}
