package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk"
)

// setup is a configuration with the given mcp blocks and an agent whose
// whitelist is tools.
func setup(t *testing.T, toolList []string, servers ...*config.MCPServer) (*config.Config, *config.Agent) {
	t.Helper()
	dir := t.TempDir()
	for _, s := range servers {
		if s.Approval == "" {
			s.Approval = config.PolicyAsk
		}
	}
	ag := &config.Agent{Name: "coder", Tools: toolList}
	return &config.Config{Dir: dir, Workspace: dir, MCPServers: servers, Agents: []*config.Agent{ag}}, ag
}

// registered opens a bridge for the agent and registers its tools.
func registered(t *testing.T, cfg *config.Config, ag *config.Agent) (*Bridge, *tools.Registry) {
	t.Helper()
	b := New(cfg, ag, nil)
	t.Cleanup(b.Close)
	reg := tools.NewRegistry()
	if err := b.Register(context.Background(), reg); err != nil {
		t.Fatalf("Register: %v", err)
	}
	return b, reg
}

func run(t *testing.T, ctx context.Context, reg *tools.Registry, name, args string) sdk.Result {
	t.Helper()
	tool, ok := reg.Tool(name)
	if !ok {
		t.Fatalf("%s is not registered; the registry holds %v", name, reg.Names())
	}
	res, err := tool.Source.Execute(ctx, sdk.Call{ID: "c1", Tool: name, Arguments: json.RawMessage(args)}, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func everything(t *testing.T) *config.MCPServer {
	return &config.MCPServer{Name: "everything", Command: []string{npmServer(t, "mcp-server-everything")}}
}

func TestRegistersOnlyWhitelistedToolsAndCallsThem(t *testing.T) {
	t.Parallel()
	cfg, ag := setup(t, []string{"read_file", "everything__echo", "everything__get-sum", "everything__get-tiny-image"}, everything(t))
	_, reg := registered(t, cfg, ag)
	if got, want := reg.Names(), []string{"everything__echo", "everything__get-sum", "everything__get-tiny-image"}; !slices.Equal(got, want) {
		t.Fatalf("registered %v, want %v", got, want)
	}
	echo, _ := reg.Tool("everything__echo")
	if echo.Origin != tools.OriginMCP || echo.Owner != "everything" || echo.Approval != config.PolicyAsk {
		t.Errorf("echo registered as %+v", echo)
	}
	if !strings.Contains(string(echo.Spec.InputSchema), `"message"`) {
		t.Errorf("echo's schema is not the server's: %s", echo.Spec.InputSchema)
	}
	ctx := context.Background()
	if res := run(t, ctx, reg, "everything__echo", `{"message":"hello bridge"}`); res.Err != nil || !strings.Contains(res.Content, "hello bridge") {
		t.Errorf("echo: %+v", res)
	}
	if res := run(t, ctx, reg, "everything__get-sum", `{"a":2,"b":40}`); res.Err != nil || !strings.Contains(res.Content, "42") {
		t.Errorf("get-sum: %+v", res)
	}
	res := run(t, ctx, reg, "everything__get-tiny-image", `{}`)
	if res.Err != nil || !strings.Contains(res.Content, "[image: image/png, ") {
		t.Errorf("get-tiny-image: %+v", res)
	}
}

func TestWildcardRegistersEveryToolOfTheServer(t *testing.T) {
	t.Parallel()
	cfg, ag := setup(t, []string{"everything__*"}, everything(t))
	b, reg := registered(t, cfg, ag)
	infos := b.Servers(context.Background())
	if len(infos) != 1 || infos[0].Err != nil || len(infos[0].Tools) < 5 {
		t.Fatalf("servers: %+v", infos)
	}
	if len(reg.Names()) != len(infos[0].Tools) {
		t.Errorf("registered %v, the server offers %d tools", reg.Names(), len(infos[0].Tools))
	}
	res := run(t, context.Background(), reg, "everything__get-resource-links", `{"count":2}`)
	if res.Err != nil || strings.Count(res.Content, "[resource link: ") != 2 {
		t.Errorf("get-resource-links: %+v", res)
	}
}

func TestWhitelistedToolTheServerLacksIsAnError(t *testing.T) {
	t.Parallel()
	cfg, ag := setup(t, []string{"everything__echo", "everything__no_such_tool"}, everything(t))
	b := New(cfg, ag, nil)
	defer b.Close()
	err := b.Register(context.Background(), tools.NewRegistry())
	if err == nil || !strings.Contains(err.Error(), `"everything__no_such_tool"`) || !strings.Contains(err.Error(), "everything__get-sum") {
		t.Fatalf("error %v, want one naming the missing tool and what the server offers", err)
	}
}

func TestCollisionWithAnotherToolIsAnError(t *testing.T) {
	t.Parallel()
	cfg, ag := setup(t, []string{"everything__echo"}, everything(t))
	reg := tools.NewRegistry()
	taken := tools.Tool{Spec: sdk.ToolSpec{Name: "everything__echo"}, Origin: tools.OriginPlugin, Owner: "impostor", Source: &source{}}
	if err := reg.Add(taken); err != nil {
		t.Fatal(err)
	}
	b := New(cfg, ag, nil)
	defer b.Close()
	if err := b.Register(context.Background(), reg); err == nil || !strings.Contains(err.Error(), "offered twice") {
		t.Fatalf("error %v, want a collision", err)
	}
}

func TestServerGetsAnExplicitEnvironment(t *testing.T) {
	t.Setenv("HARNESS_TEST_SECRET", "sk-must-not-leak")
	srv := everything(t)
	srv.Env = map[string]string{"FROM_BLOCK": "block-value"}
	cfg, ag := setup(t, []string{"everything__get-env"}, srv)
	_, reg := registered(t, cfg, ag)
	res := run(t, context.Background(), reg, "everything__get-env", `{}`)
	if res.Err != nil || !strings.Contains(res.Content, "block-value") || !strings.Contains(res.Content, "PATH") {
		t.Fatalf("get-env: %+v", res)
	}
	if strings.Contains(res.Content, "sk-must-not-leak") {
		t.Errorf("the server saw harness's environment:\n%s", res.Content)
	}
}

// pid returns the process id of a server's current session.
func pid(t *testing.T, b *Bridge, name string) int {
	t.Helper()
	for _, s := range b.servers {
		if s.cfg.Name == name {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.conn == nil || s.conn.proc == nil {
				t.Fatalf("mcp %q has no running process", name)
			}
			return s.conn.proc.cmd.Process.Pid
		}
	}
	t.Fatalf("no server %q", name)
	return 0
}

func TestHangPastTheDeadlineIsATimeoutAndTheNextCallRestarts(t *testing.T) {
	t.Parallel()
	cfg, ag := setup(t, []string{"everything__*"}, everything(t))
	b, reg := registered(t, cfg, ag)
	first := pid(t, b, "everything")
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	res := run(t, ctx, reg, "everything__trigger-long-running-operation", `{"duration":30,"steps":3}`)
	if res.Err == nil || res.Err.Kind != sdk.KindTimeout {
		t.Fatalf("result %+v, want a timeout", res)
	}
	if err := syscall.Kill(first, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the hung server %d still runs (%v)", first, err)
	}
	if res := run(t, context.Background(), reg, "everything__echo", `{"message":"after the hang"}`); res.Err != nil || !strings.Contains(res.Content, "after the hang") {
		t.Fatalf("the call after the hang: %+v", res)
	}
	if pid(t, b, "everything") == first {
		t.Error("the server was not started again")
	}
}

func TestServerKilledMidCallIsAProcessExitAndTheNextCallWorks(t *testing.T) {
	t.Parallel()
	srv := everything(t)
	var arrived func(string) bool
	srv.Env, arrived = testkit.StdinTap(t)
	cfg, ag := setup(t, []string{"everything__*"}, srv)
	b, reg := registered(t, cfg, ag)
	first := pid(t, b, "everything")
	killed := make(chan error, 1)
	go func() {
		if !testkit.Eventually(testkit.WaitLimit, func() bool { return arrived(`"tools/call"`) }) {
			killed <- errors.New("the tools/call never reached the server")
			return
		}
		killed <- syscall.Kill(first, syscall.SIGKILL)
	}()
	res := run(t, context.Background(), reg, "everything__trigger-long-running-operation", `{"duration":30,"steps":3}`)
	if err := <-killed; err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Kind != sdk.KindProcessExit || !strings.Contains(res.Err.Message, "signal: killed") {
		t.Fatalf("result %+v, want process_exit", res)
	}
	if res := run(t, context.Background(), reg, "everything__echo", `{"message":"after the crash"}`); res.Err != nil || !strings.Contains(res.Content, "after the crash") {
		t.Fatalf("the call after the crash: %+v", res)
	}
}

func TestServerKilledBetweenCallsStartsAgain(t *testing.T) {
	t.Parallel()
	cfg, ag := setup(t, []string{"everything__echo"}, everything(t))
	b, reg := registered(t, cfg, ag)
	first := pid(t, b, "everything")
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// A server killed while a call is on its way gives process_exit; one
	// the bridge saw exit is started again before the call.
	proc := b.servers[0].conn.proc
	if !proc.waitExit(10 * time.Second) {
		t.Fatal("the bridge did not see the server exit")
	}
	if res := run(t, context.Background(), reg, "everything__echo", `{"message":"again"}`); res.Err != nil || !strings.Contains(res.Content, "again") {
		t.Fatalf("echo after the kill: %+v", res)
	}
}

func TestServerThatCannotStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	crash := filepath.Join(dir, "crash.sh")
	if err := os.WriteFile(crash, []byte("#!/bin/sh\necho 'fatal: no config file' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		command []string
		kind    sdk.ErrorKind
		says    []string
	}{
		{"crashes", []string{crash}, sdk.KindProcessExit, []string{"exit status 3", "fatal: no config file"}},
		{"missing program", []string{"no-such-mcp-server"}, sdk.KindInternal, []string{`"no-such-mcp-server" is not in PATH`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, ag := setup(t, []string{"broken__*"}, &config.MCPServer{Name: "broken", Command: tt.command})
			b := New(cfg, ag, nil)
			defer b.Close()
			err := b.Register(context.Background(), tools.NewRegistry())
			if sdk.KindOf(err) != tt.kind {
				t.Fatalf("error %v, want kind %s", err, tt.kind)
			}
			for _, s := range tt.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
}

func TestServerThatNeverAnswersTimesOutAtStart(t *testing.T) {
	// startTimeout is shared: this test does not run in parallel.
	old := startTimeout
	startTimeout = 500 * time.Millisecond
	defer func() { startTimeout = old }()
	cfg, ag := setup(t, []string{"mute__*"}, &config.MCPServer{Name: "mute", Command: []string{"sleep", "30"}})
	b := New(cfg, ag, nil)
	defer b.Close()
	err := b.Register(context.Background(), tools.NewRegistry())
	if sdk.KindOf(err) != sdk.KindTimeout {
		t.Fatalf("error %v, want a timeout", err)
	}
}

func TestCloseStopsEveryServer(t *testing.T) {
	t.Parallel()
	cfg, ag := setup(t, []string{"a__echo", "b__echo"},
		&config.MCPServer{Name: "a", Command: []string{npmServer(t, "mcp-server-everything")}},
		&config.MCPServer{Name: "b", Command: []string{npmServer(t, "mcp-server-everything")}})
	b := New(cfg, ag, nil)
	if err := b.Register(context.Background(), tools.NewRegistry()); err != nil {
		t.Fatal(err)
	}
	pids := []int{pid(t, b, "a"), pid(t, b, "b")}
	start := time.Now()
	b.Close()
	t.Logf("Close took %s", time.Since(start))
	for _, p := range pids {
		if err := syscall.Kill(p, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server %d outlived Close (%v)", p, err)
		}
	}
}

// httpServer serves an MCP server of the Go SDK over streamable HTTP.
func httpServer(t *testing.T, s *mcp.Server) string {
	t.Helper()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestToolsThatShareANameAreAnErrorOnceSelected(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "1"}, nil)
	for _, name := range []string{"get.sum", "get_sum", "other"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
	}
	url := httpServer(t, s)
	for _, tt := range []struct {
		whitelist []string
		err       string
	}{
		{[]string{"calc__other"}, ""},
		{[]string{"calc__get_sum"}, `offers tools "get.sum" and "get_sum", which are both named "calc__get_sum"`},
		{[]string{"calc__*"}, `offers tools "get.sum" and "get_sum", which are both named "calc__get_sum"`},
	} {
		cfg, ag := setup(t, tt.whitelist, &config.MCPServer{Name: "calc", URL: url})
		b := New(cfg, ag, nil)
		reg := tools.NewRegistry()
		err := b.Register(context.Background(), reg)
		b.Close()
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%v: %v", tt.whitelist, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || strings.Count(err.Error(), "both named") != 1):
			t.Errorf("%v: error %v, want one saying %s", tt.whitelist, err, tt.err)
		}
	}
}

func TestStreamableHTTPServer(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1"}, nil)
	type in struct {
		City string `json:"city"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather"},
		func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			if a.City == "" {
				return nil, nil, errors.New("which city?")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + a.City}}}, nil, nil
		})
	cfg, ag := setup(t, []string{"weather__forecast"}, &config.MCPServer{Name: "weather", URL: httpServer(t, s), Approval: config.PolicyAllow})
	b, reg := registered(t, cfg, ag)
	if res := run(t, context.Background(), reg, "weather__forecast", `{"city":"Lyon"}`); res.Err != nil || res.Content != "sunny in Lyon" {
		t.Errorf("forecast: %+v", res)
	}
	res := run(t, context.Background(), reg, "weather__forecast", `{"city":""}`)
	if res.Err == nil || res.Err.Kind != sdk.KindInternal || !strings.Contains(res.Err.Message, "which city?") {
		t.Errorf("a failing tool: %+v", res)
	}
	if infos := b.Servers(context.Background()); infos[0].Transport != TransportHTTP || infos[0].Tools[0].Name != "weather__forecast" {
		t.Errorf("servers: %+v", infos)
	}
	b.Close()
}
