//go:build unix

package runner

import (
	"context"
	"encoding/json"
	"errors"
	"syscall"
	"testing"

	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk"
)

// TestClosingReapsThePluginsWhileTheStoreCloses: Close stops the plugins
// while the store closes, not after it: a store that is slow to close does
// not hold them up, one that fails to close still leaves none running, and
// Close returns once they are reaped, with the store's error.
func TestClosingReapsThePluginsWhileTheStoreCloses(t *testing.T) {
	t.Parallel()
	host, err := pluginhost.New(pluginhost.Options{SelfExe: testkit.Build(t, "../pluginhost/testdata/testplugin")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(host.Close)
	if err := host.Register(pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Builtin: true}); err != nil {
		t.Fatal(err)
	}
	th, err := host.Tool("tp")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := th.Execute(context.Background(), sdk.Call{ID: "c", Tool: "noop", Arguments: json.RawMessage(`{}`)}, nil); err != nil {
		t.Fatal(err)
	}
	pid := host.PID("tp")
	if pid == 0 {
		t.Fatal("the plugin is not running")
	}
	warmed := make(chan struct{})
	close(warmed)
	r := &Runner{host: host, warmed: warmed}
	failed := errors.New("the store could not close")
	err = r.shutdown(func() error {
		testkit.WaitFor(t, func() bool { return reaped(pid) }, "the plugin to be reaped while the store closes")
		return failed
	})
	if !errors.Is(err, failed) {
		t.Errorf("Close returned %v, want the store's error", err)
	}
	if !reaped(pid) || host.PID("tp") != 0 {
		t.Errorf("plugin process %d still there after Close", pid)
	}
}

// reaped reports whether process pid is gone, its exit collected: a
// zombie still takes signal 0.
func reaped(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
