package deepseek_test

import (
	"testing"

	"github.com/harness-agent/harness/internal/testkit"
)

// No goroutine may outlive the tests: not a stream, a watchdog, an HTTP
// connection of a provider, or a plugin client.
func TestMain(m *testing.M) { testkit.Main(m) }

// pluginBinary is cmd/harness-provider-deepseek, built once per test process.
func pluginBinary(t *testing.T) string {
	t.Helper()
	return testkit.Build(t, "./cmd/harness-provider-deepseek")
}
