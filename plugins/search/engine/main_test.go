package engine

import (
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
)

// Every search, canceled or not, must leave no worker behind.
func TestMain(m *testing.M) {
	testkit.Main(m)
}
