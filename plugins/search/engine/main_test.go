package engine

import (
	"testing"

	"go.uber.org/goleak"
)

// Every search, canceled or not, must leave no worker behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
