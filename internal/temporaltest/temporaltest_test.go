package temporaltest

import (
	"net"
	"testing"
)

// TestStartAgainWhenAPortIsTaken: a port taken between picking and binding
// it makes the server exit; Start starts it again on other ports.
func TestStartAgainWhenAPortIsTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	pick := freePort
	t.Cleanup(func() { freePort = pick })
	calls := 0
	freePort = func(tb testing.TB) int {
		if calls++; calls == 3 { // the first launch's HTTP port
			return taken.Addr().(*net.TCPAddr).Port
		}
		return pick(tb)
	}
	Start(t) // fails the test unless a server became ready
	if calls != 8 {
		t.Errorf("%d ports picked, want 8: two launches of four", calls)
	}
}
