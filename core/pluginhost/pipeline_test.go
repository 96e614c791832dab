package pluginhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/sdk"
)

var refuse = sdk.PluginConfig{Workspace: "/ws-refused", Config: json.RawMessage(`{"refuse":true}`)}

// configuredBuiltin is a host with the test plugin as built-in tp,
// configured with workspace ws.
func configuredBuiltin(t *testing.T, ws string) (*pluginhost.Host, *pluginhost.ToolHandle) {
	t.Helper()
	h := newHost(t, pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Builtin: true})
	th, _ := h.Tool("tp")
	if err := th.Configure(context.Background(), sdk.PluginConfig{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	return h, th
}

func workspaceCall(t *testing.T, th *pluginhost.ToolHandle) (sdk.Result, error) {
	t.Helper()
	return th.Execute(context.Background(), sdk.Call{ID: "w", Tool: "workspace", Arguments: json.RawMessage(`{}`)}, nil)
}

// wantRefused checks err is the test plugin's refusal, as the plugin said it.
func wantRefused(t *testing.T, what string, err error) {
	t.Helper()
	var se *sdk.Error
	if !errors.As(err, &se) || se.Kind != sdk.KindInvalidArgs || !strings.Contains(se.Message, "refuses this configuration") {
		t.Fatalf("%s: want the plugin's refusal (invalid_args), got %v", what, err)
	}
}

func TestPipelinedConfigureRunsConfigured(t *testing.T) {
	t.Parallel()
	h := newHost(t, pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Builtin: true})
	th, _ := h.Tool("tp")
	ctx := context.Background()
	for _, ws := range []string{"/ws-one", "/ws-two"} {
		if err := th.Configure(ctx, sdk.PluginConfig{Workspace: ws}); err != nil {
			t.Fatal(err)
		}
		// Concurrent first calls all follow the Configure not yet answered.
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := workspaceCall(t, th)
				if err != nil || res.Content != ws {
					t.Errorf("call after Configure(%s): %q %v", ws, res.Content, err)
				}
			}()
		}
		wg.Wait()
	}
	if err := th.Configured(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestPipelinedConfigureRefusalFailsTheCall(t *testing.T) {
	t.Parallel()
	h := newHost(t, pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Builtin: true})
	th, _ := h.Tool("tp")
	ctx := context.Background()
	if err := th.Configure(ctx, refuse); err != nil {
		t.Fatalf("a built-in's Configure is not waited for, yet it returned %v", err)
	}
	res, err := workspaceCall(t, th)
	wantRefused(t, "the call after a refused Configure", err)
	if res.Content != "" {
		t.Errorf("the call ran unconfigured: %q", res.Content)
	}
	// As without pipelining, every later call sends the configuration
	// again and gets the same answer.
	_, err = workspaceCall(t, th)
	wantRefused(t, "a second call", err)
	wantRefused(t, "Configured", th.Configured(ctx))

	if err := th.Configure(ctx, sdk.PluginConfig{Workspace: "/ws-good"}); err != nil {
		t.Fatal(err)
	}
	if res, err := workspaceCall(t, th); err != nil || res.Content != "/ws-good" {
		t.Fatalf("after a good Configure: %q %v", res.Content, err)
	}
}

func TestThirdPartyPipelinesOnlyOnceItSaysSo(t *testing.T) {
	t.Parallel()
	h := newHost(t, pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Path: testPlugin, SHA256: sha(t, testPlugin)})
	th, _ := h.Tool("tp")
	ctx := context.Background()
	// Not described yet: nothing says the plugin orders its calls.
	wantRefused(t, "Configure before Describe", th.Configure(ctx, refuse))
	if _, err := th.Describe(ctx); err == nil {
		t.Fatal("Describe after a refused Configure should fail as every call does")
	}
	if err := th.Configure(ctx, sdk.PluginConfig{Workspace: "/ws"}); err != nil {
		t.Fatal(err)
	}
	if _, err := th.Describe(ctx); err != nil {
		t.Fatal(err)
	}
	if err := th.Configure(ctx, refuse); err != nil {
		t.Fatalf("after its Describe said ordered_configure, Configure is not waited for, yet it returned %v", err)
	}
	_, err := workspaceCall(t, th)
	wantRefused(t, "the call after a refused Configure", err)
}

func TestUnorderedPluginGetsConfigureAnsweredFirst(t *testing.T) {
	t.Parallel()
	h := newHost(t, pluginhost.Spec{Name: "old", Kind: sdk.PluginTool, Path: testPlugin, SHA256: sha(t, testPlugin),
		Env: []string{"TESTPLUGIN_UNORDERED=1"}})
	th, _ := h.Tool("old")
	ctx := context.Background()
	if _, err := th.Describe(ctx); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, "Configure of a plugin without ordered_configure", th.Configure(ctx, refuse))
	for _, ws := range []string{"/ws-one", "/ws-two"} {
		if err := th.Configure(ctx, sdk.PluginConfig{Workspace: ws}); err != nil {
			t.Fatal(err)
		}
		if res, err := workspaceCall(t, th); err != nil || res.Content != ws {
			t.Fatalf("call after Configure(%s): %q %v", ws, res.Content, err)
		}
	}
}

// Configured returns the plugin's answer to the Configure sent without
// waiting (how the harness sets up a third-party plugin), instead of
// sending the configuration a second time for its own answer.
func TestConfiguredReturnsThePipelinedRefusal(t *testing.T) {
	t.Parallel()
	h := newHost(t, pluginhost.Spec{Name: "tp", Kind: sdk.PluginTool, Path: testPlugin, SHA256: sha(t, testPlugin)})
	th, _ := h.Tool("tp")
	ctx := context.Background()
	if _, err := th.Describe(ctx); err != nil {
		t.Fatal(err)
	}
	if err := th.Configure(ctx, refuse); err != nil {
		t.Fatalf("after its Describe said ordered_configure, Configure is not waited for, yet it returned %v", err)
	}
	wantRefused(t, "Configured", th.Configured(ctx))
	if err := th.Configure(ctx, sdk.PluginConfig{Workspace: "/ws"}); err != nil {
		t.Fatal(err)
	}
	res, err := th.Execute(ctx, sdk.Call{ID: "c", Tool: "configures", Arguments: json.RawMessage(`{}`)}, nil)
	if err != nil || res.Err != nil {
		t.Fatalf("configures: %v %v", err, res.Err)
	}
	if res.Content != "2" {
		t.Errorf("the plugin handled %s Configure calls, want 2 (the refused one and the good one)", res.Content)
	}
}

// A plugin killed between a Configure not yet answered and the call that
// follows it: the call ends (process_exit, or it ran on a fresh process),
// never with the old configuration or none, and the next call runs on a
// fresh process that has the new one.
func TestPluginKilledBetweenConfigureAndExecute(t *testing.T) {
	t.Parallel()
	h, th := configuredBuiltin(t, "/ws-one")
	ctx := context.Background()
	if res, err := workspaceCall(t, th); err != nil || res.Content != "/ws-one" {
		t.Fatalf("first call: %q %v", res.Content, err)
	}
	first := h.PID("tp")
	if err := th.Configure(ctx, sdk.PluginConfig{Workspace: "/ws-two"}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res, err := workspaceCall(t, th)
	var se *sdk.Error
	switch {
	case err == nil && res.Content != "/ws-two":
		t.Fatalf("the call after the kill ran with workspace %q, want /ws-two", res.Content)
	case err != nil && (!errors.As(err, &se) || se.Kind != sdk.KindProcessExit):
		t.Fatalf("the call after the kill: want process_exit, got %v", err)
	}
	if res, err := workspaceCall(t, th); err != nil || res.Content != "/ws-two" {
		t.Fatalf("the next call: %q %v", res.Content, err)
	}
	if second := h.PID("tp"); second == 0 || second == first {
		t.Errorf("expected a fresh process, pid before %d after %d", first, second)
	}
}
