package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"golang.org/x/sys/unix"

	"github.com/harness-agent/harness/sdk"
)

// startPlugin runs the standalone plugin binary the way the host does:
// its own process, an explicit environment, gRPC only.
func startPlugin(t testing.TB, env ...string) (*sdk.ToolClient, *plugin.Client) {
	t.Helper()
	cmd := exec.Command(pluginBinary)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sdk.HostPluginSets(),
		Cmd:              cmd,
		SkipHostEnv:      true,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		GRPCDialOptions:  sdk.GRPCDialOptions(),
		Logger:           hclog.NewNullLogger(),
	})
	t.Cleanup(client.Kill)
	rpc, err := client.Client()
	if err != nil {
		t.Fatalf("start the plugin: %v", err)
	}
	raw, err := rpc.Dispense(sdk.PluginTool)
	if err != nil {
		t.Fatalf("dispense: %v", err)
	}
	return raw.(*sdk.ToolClient), client
}

func configure(t testing.TB, tc *sdk.ToolClient, ws, cfg string) {
	t.Helper()
	if err := tc.Configure(context.Background(), sdk.PluginConfig{Workspace: ws, Config: json.RawMessage(cfg)}); err != nil {
		t.Fatalf("configure %s: %v", cfg, err)
	}
}

func TestPluginBinaryDescribes(t *testing.T) {
	t.Parallel()
	tc, _ := startPlugin(t)
	info, err := tc.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "terminal" || len(info.Tools) != 1 || info.Tools[0].Name != "terminal" || !info.Tools[0].Executes {
		t.Fatalf("describe: %+v", info)
	}
	if !strings.Contains(info.Tools[0].Description, "exit code") || len(info.ConfigSchema) == 0 {
		t.Errorf("description or config schema missing: %+v", info)
	}
}

func TestPluginBinaryScrubsItsEnvironment(t *testing.T) {
	t.Parallel()
	tc, _ := startPlugin(t, "FOO_API_KEY=s3cret", "HARNESS_LOG=warn", "FOO_VISIBLE=yes")
	configure(t, tc, t.TempDir(), `{}`)
	res, err := tc.Execute(context.Background(), call("env", 0), nil)
	if err != nil || res.Err != nil {
		t.Fatalf("%v %v", err, res.Err)
	}
	for _, leaked := range []string{"FOO_API_KEY", "s3cret", "HARNESS_LOG", sdk.Handshake.MagicCookieKey, "PLUGIN_"} {
		if strings.Contains(res.Content, leaked) {
			t.Errorf("%s reached the command: %q", leaked, res.Content)
		}
	}
	if !strings.Contains(res.Content, "FOO_VISIBLE=yes\n") {
		t.Errorf("FOO_VISIBLE is missing from %q", res.Content)
	}
}

func TestPluginBinarySandbox(t *testing.T) {
	t.Parallel()
	requireSandbox(t)
	outside := outsideDir(t)
	ws := t.TempDir()
	tc, _ := startPlugin(t)
	ctx := context.Background()

	configure(t, tc, ws, `{"sandbox": "workspace-write"}`)
	target := filepath.Join(outside, "x")
	res, err := tc.Execute(ctx, call(fmt.Sprintf("touch ok && touch $TMPDIR/ok && echo x >/dev/null && echo inside; touch %s", target), 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil || !strings.Contains(res.Content, "inside\n") ||
		!strings.Contains(res.Content, "cannot touch '"+target+"'") || !strings.HasSuffix(res.Content, "exit code: 1") {
		t.Fatalf("content %q err %v: want writes inside to work and the write outside refused", res.Content, res.Err)
	}
	if _, err := os.Stat(filepath.Join(ws, "ok")); err != nil {
		t.Errorf("the sandboxed write in the workspace did not happen: %v", err)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write outside happened: %v", err)
	}

	// The plugin process was not confined: unsandboxed, the same write works.
	configure(t, tc, ws, `{"sandbox": "off"}`)
	res, err = tc.Execute(ctx, call("touch "+target, 0), nil)
	if err != nil || res.Err != nil || res.Content != "(no output)\nexit code: 0" {
		t.Fatalf("unsandboxed: content %q, %v %v", res.Content, err, res.Err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the unsandboxed write did not happen: %v", err)
	}
}

// TestPluginEndTakesItsCommandsAlong stops the plugin while a command with
// background grandchildren runs, one of which left the process group:
// SIGTERM is the host stopping it (the shutdown hook runs), SIGKILL leaves
// the plugin no say (the helpers see their control socket close).
func TestPluginEndTakesItsCommandsAlong(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(unix.SignalName(sig), func(t *testing.T) {
			t.Parallel()
			inEveryMode(t, func(t *testing.T, _, cfg string) {
				tc, client := startPlugin(t)
				configure(t, tc, t.TempDir(), cfg)
				marker := sleepMarker()
				rec := newRecorder()
				answered := make(chan error, 1)
				go func() {
					res, err := tc.Execute(context.Background(), call(spawnSleepers(marker, "", "setsid ")+"; sleep "+marker, 60), rec.progress)
					if err == nil && res.Err != nil {
						err = res.Err // the plugin had time to answer
					}
					answered <- err
				}()
				rec.waitOutput(t, "started")
				if n := len(sleepers(marker)); n < 2 {
					t.Fatalf("%d sleepers running, want at least the 2 in the background", n)
				}

				if err := syscall.Kill(client.ReattachConfig().Pid, sig); err != nil {
					t.Fatalf("signal the plugin: %v", err)
				}
				switch err := <-answered; {
				case err == nil:
					t.Error("the call to a stopped plugin succeeded")
				case sdk.KindOf(err) == sdk.KindCanceled:
					t.Logf("answered: %v", err)
				}
				waitFor(t, 10*time.Second, "the command's processes to end with the plugin", func() bool {
					return len(withMarker(marker)) == 0
				})
			})
		})
	}
}

// BenchmarkCommand measures one call of `true` through the real plugin
// binary: gRPC, the helper, bash and the teardown. BenchmarkBareShell is
// the reference: bash alone.
func BenchmarkCommand(b *testing.B) {
	for _, sandbox := range []string{"off", "workspace-write"} {
		b.Run("sandbox="+sandbox, func(b *testing.B) {
			if sandbox != "off" {
				requireSandbox(b)
			}
			tc, _ := startPlugin(b, "TMPDIR="+b.TempDir())
			configure(b, tc, b.TempDir(), fmt.Sprintf(`{"sandbox": %q}`, sandbox))
			for b.Loop() {
				res, err := tc.Execute(context.Background(), call("true", 0), nil)
				if err != nil || res.Err != nil {
					b.Fatal(err, res.Err)
				}
			}
		})
	}
}

func BenchmarkBareShell(b *testing.B) {
	for b.Loop() {
		if err := exec.Command(shell(), "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
