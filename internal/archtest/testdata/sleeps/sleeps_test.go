package sleeps

import (
	"testing"
	clock "time"
)

func TestSleeps(t *testing.T) {
	clock.Sleep(clock.Millisecond) // want
	// testkit:allow-sleep a fake that is slow on purpose
	clock.Sleep(clock.Millisecond)
	clock.Sleep(clock.Millisecond) // testkit:allow-sleep the same, on its line
	// testkit:allow-sleep
	clock.Sleep(clock.Millisecond) // want
	f := clock.Sleep               // want
	f(0)
}
