package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/config"
	hmcp "github.com/harness-agent/harness/core/mcp"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
)

// everythingServer is the MCP reference server that .ci/run installs from
// npm (@modelcontextprotocol/server-everything, pinned in .ci/npm).
func everythingServer(b *testing.B) string {
	b.Helper()
	path, err := filepath.Abs("../.ci/npm/node_modules/.bin/mcp-server-everything")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		b.Skip("server-everything is not installed: npm ci --prefix .ci/npm")
	}
	if _, err := exec.LookPath("node"); err != nil {
		b.Skip("node is not installed")
	}
	return path
}

// BenchmarkMCPCall calls the echo tool of server-everything through the
// MCP bridge and every phase of the executor (approval = "allow"), with the
// events committed to the store and with them dropped, alternating with
// the MCP Go SDK's client alone calling the same tool on another process
// of the server. "small" echoes a word; "64KiB" echoes 64 KiB (the executor
// caps what the model gets at 32 KiB head + tail).
func BenchmarkMCPCall(b *testing.B) {
	bin := everythingServer(b)
	ctx := context.Background()
	ws := b.TempDir()
	ag := &config.Agent{Name: "bench", Tools: []string{"everything__echo"}}
	cfg := &config.Config{Dir: ws, Workspace: ws, Agents: []*config.Agent{ag},
		MCPServers: []*config.MCPServer{{Name: "everything", Command: []string{bin}, Approval: config.PolicyAllow}}}
	bridge := hmcp.New(cfg, ag, nil)
	defer bridge.Close()
	reg := tools.NewRegistry()
	if err := bridge.Register(ctx, reg); err != nil {
		b.Fatal(err)
	}
	store, err := session.Open(filepath.Join(b.TempDir(), session.StoreFile))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	info, err := store.CreateSession(ctx, session.SessionInfo{Agent: "bench", Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	executor := func(rec tools.Recorder) *tools.Executor {
		pipeline, err := approval.New(approval.Options{Store: store, Session: info.ID, Workspace: ws, Recorder: rec})
		if err != nil {
			b.Fatal(err)
		}
		ex, err := tools.NewExecutor(reg, tools.Options{Session: info.ID, Agent: "bench", Whitelist: ag.Tools,
			Approver: pipeline, Recorder: rec, RepeatLimit: 1 << 30, StopLimit: 1 << 30})
		if err != nil {
			b.Fatal(err)
		}
		return ex
	}
	rec := tools.SessionRecorder(store, info.ID)
	ex, exNoStore := phased{executor(rec), rec}, phased{ex: executor(nil)}

	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cmd := exec.Command(bin)
	cmd.Dir = ws
	bare, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Close()

	for _, size := range []struct {
		name    string
		message string
	}{
		{"small", "ping"},
		{"64KiB", strings.Repeat("x", 64<<10)},
	} {
		b.Run(size.name, func(b *testing.B) {
			args := map[string]any{"message": size.message}
			var viaPhases, viaPhasesAwaited, viaPhasesNoStore, viaBare timings
			for b.Loop() {
				timeCall(b, ex, &viaPhases, &viaPhasesAwaited, "everything__echo", args)
				viaPhasesNoStore.time(func() { runCall(b, exNoStore, "everything__echo", args) })
				viaBare.time(func() {
					res, err := bare.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
					if err != nil || res.IsError {
						b.Fatal(err, res)
					}
				})
			}
			ex.done(b)
			report(b, time.Microsecond, []string{"phases", "bare", "phases-nostore", "phases+commit"}, viaPhases, viaBare, viaPhasesNoStore, viaPhasesAwaited)
		})
	}
}
