package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/pluginhost"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/internal/testkit"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/proto/toolv1"
)

// host starts a plugin host whose built-in plugins are served by bin, and
// registers name as a built-in tool plugin.
func host(b *testing.B, bin, name string) (*pluginhost.Host, *pluginhost.ToolHandle) {
	b.Helper()
	h, err := pluginhost.New(pluginhost.Options{SelfExe: bin})
	if err != nil {
		b.Fatal(err)
	}
	if err := h.Register(pluginhost.Spec{Name: name, Kind: sdk.PluginTool, Builtin: true}); err != nil {
		b.Fatal(err)
	}
	th, err := h.Tool(name)
	if err != nil {
		b.Fatal(err)
	}
	return h, th
}

// bareClient is go-plugin alone, as any host would start a plugin: no
// checksum, no explicit environment, no crash handling.
func bareClient(args ...string) *plugin.Client {
	return bareCommand(exec.Command(args[0], args[1:]...))
}

// bareCommand is bareClient for a command made by the caller.
func bareCommand(cmd *exec.Cmd) *plugin.Client {
	return plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sdk.HostPluginSets(),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		GRPCDialOptions:  sdk.GRPCDialOptions(),
		Cmd:              cmd,
		Logger:           hclog.NewNullLogger(),
	})
}

// bareTool starts a bare client and returns its raw gRPC tool client, the
// connection, and the SDK's client over the same connection.
func bareTool(b *testing.B, args ...string) (toolv1.ToolClient, *grpc.ClientConn, *sdk.ToolClient) {
	b.Helper()
	cl := bareClient(args...)
	b.Cleanup(cl.Kill)
	rpc, err := cl.Client()
	if err != nil {
		b.Fatal(err)
	}
	raw, err := rpc.Dispense(sdk.PluginTool)
	if err != nil {
		b.Fatal(err)
	}
	conn := rpc.(*plugin.GRPCClient).Conn
	return toolv1.NewToolClient(conn), conn, raw.(*sdk.ToolClient)
}

func call(tool string, args any) sdk.Call {
	raw, _ := json.Marshal(args)
	return sdk.Call{ID: "bench", Tool: tool, Arguments: raw}
}

// BenchmarkSearch runs search_workspace through the plugin boundary (host
// handle, gRPC, the search plugin process) on Go's source tree, alternating
// with ripgrep (`rg -c`, a process per search) on the same query.
func BenchmarkSearch(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("ripgrep (rg) is not on PATH (apt package ripgrep)")
	}
	// `go env`, not runtime.GOROOT: a -trimpath build (bench/run.sh's) knows
	// no GOROOT.
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT failed (%v); the Go source tree is the benchmark corpus", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	ctx := context.Background()
	h, th := host(b, harnessBin, "search")
	defer h.Close()
	if err := th.Configure(ctx, sdk.PluginConfig{Workspace: src, Config: json.RawMessage(`{}`)}); err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct {
		name, pattern string
		regex         bool
	}{
		{"literal", "func NewReader", false},
		{"regex", `func [A-Z][a-z]+Reader\(`, true},
	} {
		b.Run(q.name, func(b *testing.B) {
			c := call("search_workspace", map[string]any{"query": q.pattern, "regex": q.regex})
			var plug, ref timings
			var hits, rgHits int
			search := func() {
				res, err := th.Execute(ctx, c, nil)
				if err != nil || res.Err != nil {
					b.Fatal(err, res.Err)
				}
				hits = res.Presentation.(sdk.SearchView).Total
			}
			ripgrep := func() {
				out, err := exec.Command(rg, "-c", "--no-config", "-e", q.pattern, src).Output()
				if err != nil {
					b.Fatal(err)
				}
				rgHits = sumCounts(b, out)
			}
			search() // warm the page cache for both
			ripgrep()
			for b.Loop() {
				plug.time(search)
				ref.time(ripgrep)
			}
			report(b, time.Millisecond, []string{"plugin", "rg"}, plug, ref)
			b.ReportMetric(float64(hits), "hits")
			b.ReportMetric(float64(rgHits), "rg-hits")
		})
	}
}

// sumCounts adds up rg -c output (path:count lines).
func sumCounts(b *testing.B, out []byte) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		c, err := strconv.Atoi(line[strings.LastIndexByte(line, ':')+1:])
		if err != nil {
			b.Fatalf("rg -c line %q", line)
		}
		n += c
	}
	return n
}

// BenchmarkStartToFirstCall starts the built-in read_file plugin (the
// harness binary re-executed) and makes its first call: through the host
// (start, handshake, dispense, configure, call), alternating with go-plugin
// alone starting the same program and making the same calls, raw.
// Stopping the plugins is not timed, nor is making the host.
//
// Both run the same bytes from the same kind of file. A host given the
// binary by path pins it: it runs a sealed in-memory copy (see
// core/pluginhost), as it runs every third-party plugin. The bare
// reference is given a sealed copy too, so the ratio is what the host adds.
// A process started from such a copy pays its page faults on shared memory
// rather than on the page cache of a file on disk; bare-file is the bare
// start from the file itself, so the copy's own cost is measured as well.
// A run's built-ins start from the file: a host made with no SelfExe runs
// its own image, /proc/self/exe.
func BenchmarkStartToFirstCall(b *testing.B) {
	ctx := context.Background()
	ws := b.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	read := call("read_file", map[string]any{"path": "a.txt"})
	rawRead := &toolv1.Execute_Request{CallId: read.ID, Tool: read.Tool, ArgumentsJson: read.Arguments}
	copied := sealedCopy(b, harnessBin)
	var hosted, bare, file timings
	for b.Loop() {
		h, err := pluginhost.New(pluginhost.Options{SelfExe: harnessBin})
		if err != nil {
			b.Fatal(err)
		}
		hosted.time(func() {
			if err := h.Register(pluginhost.Spec{Name: "readfile", Kind: sdk.PluginTool, Builtin: true}); err != nil {
				b.Fatal(err)
			}
			th, err := h.Tool("readfile")
			if err != nil {
				b.Fatal(err)
			}
			if err := th.Configure(ctx, sdk.PluginConfig{Workspace: ws, Config: json.RawMessage(`{}`)}); err != nil {
				b.Fatal(err)
			}
			if res, err := th.Execute(ctx, read, nil); err != nil || res.Err != nil {
				b.Fatal(err, res.Err)
			}
		})
		h.Close()

		for _, side := range []struct {
			t   *timings
			cmd *exec.Cmd
		}{
			{&bare, sealedCommand(copied, "plugin", "serve", "readfile")},
			{&file, exec.Command(harnessBin, "plugin", "serve", "readfile")},
		} {
			var cl *plugin.Client
			side.t.time(func() { cl = bareFirstCall(b, side.cmd, ws, rawRead) })
			cl.Kill()
		}
	}
	report(b, time.Millisecond, []string{"host", "bare", "bare-file"}, hosted, bare, file)
}

// bareFirstCall starts cmd with go-plugin alone and makes the calls the
// host makes, raw, one after the other as a plain client would: Configure
// with the workspace, then read_file's Execute, read to its end. The
// caller kills the process.
func bareFirstCall(b *testing.B, cmd *exec.Cmd, ws string, read *toolv1.Execute_Request) *plugin.Client {
	ctx := context.Background()
	cl := bareCommand(cmd)
	rpc, err := cl.Client()
	if err != nil {
		cl.Kill()
		b.Fatal(err)
	}
	tc := toolv1.NewToolClient(rpc.(*plugin.GRPCClient).Conn)
	if res, err := tc.Configure(ctx, &toolv1.Configure_Request{Workspace: ws, ConfigJson: []byte(`{}`)}); err != nil || res.GetError() != nil {
		cl.Kill()
		b.Fatal(err, res.GetError())
	}
	stream, err := tc.Execute(ctx, read)
	for err == nil {
		var ev *toolv1.Execute_Event
		if ev, err = stream.Recv(); err == nil && ev.GetResult().GetError() != nil {
			err = fmt.Errorf("read_file failed: %v", ev.GetResult().GetError())
		}
	}
	if !errors.Is(err, io.EOF) {
		cl.Kill()
		b.Fatal(err)
	}
	return cl
}

// phased is an executor with what a run puts around it.
type phased struct {
	ex  *tools.Executor
	rec *tools.StoreRecorder // nil: events dropped
}

// phases builds what a run puts around a tool source: a registry, the
// approval pipeline and an executor recording events in a session store
// through the run's recorder (record = false drops the events instead).
func phases(b *testing.B, src tools.Source, record bool, specs ...sdk.ToolSpec) phased {
	b.Helper()
	ctx := context.Background()
	ws := b.TempDir()
	store, err := session.Open(filepath.Join(b.TempDir(), session.StoreFile))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	info, err := store.CreateSession(ctx, session.SessionInfo{Agent: "bench", Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	reg := tools.NewRegistry()
	var names []string
	for _, s := range specs {
		if err := reg.Add(tools.Tool{Spec: s, Origin: tools.OriginBuiltin, Owner: "bench", Source: src}); err != nil {
			b.Fatal(err)
		}
		names = append(names, s.Name)
	}
	var rec tools.Recorder
	var storeRec *tools.StoreRecorder
	if record {
		storeRec = tools.SessionRecorder(store, info.ID)
		rec = storeRec
	}
	pipeline, err := approval.New(approval.Options{Store: store, Session: info.ID, Workspace: ws, Recorder: rec})
	if err != nil {
		b.Fatal(err)
	}
	ex, err := tools.NewExecutor(reg, tools.Options{Session: info.ID, Agent: "bench", Whitelist: names,
		Approver: pipeline, Recorder: rec, RepeatLimit: 1 << 30, StopLimit: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	return phased{ex, storeRec}
}

// runCall runs a call through the executor. The loop guard is set to never
// refuse the identical calls of a benchmark. With the store it commits as
// the agent loop does at the end of a batch of calls: the call's tool.call
// is committed before it runs, or, for a tool that cannot act on the world
// (no capability, as noop), in the background while it runs; its
// tool.result is deferred and committed in the background (runCall returns
// without waiting for either). timeCall times it and waits for those
// commits untimed; done flushes the last one.
func runCall(b *testing.B, p phased, tool string, args map[string]any) sdk.Result {
	b.Helper()
	ctx := context.Background()
	c := call(tool, args)
	var o tools.Outcome
	if p.rec == nil {
		o = p.ex.Run(ctx, c)
	} else {
		o = p.ex.RunDeferred(ctx, c)
		p.rec.Background(ctx)
	}
	if o.Result.Err != nil || o.RecordErr != nil {
		b.Fatal(o.Result.Err, o.RecordErr)
	}
	return o.Result
}

// timeCall times runCall into phases, then waits, untimed, until the
// call's result is committed, so that no background commit runs while
// another path is timed; awaited gets the call with that wait (the time
// until its result is committed), when the store records.
func timeCall(b *testing.B, p phased, phases, awaited *timings, tool string, args map[string]any) {
	b.Helper()
	phases.time(func() { runCall(b, p, tool, args) })
	if p.rec == nil {
		return
	}
	start := time.Now()
	p.done(b)
	*awaited = append(*awaited, (*phases)[len(*phases)-1]+time.Since(start))
}

// done commits what the last runCall deferred.
func (p phased) done(b *testing.B) {
	b.Helper()
	if p.rec != nil {
		if err := p.rec.Flush(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNoopCall is a no-op tool call on a running plugin process,
// alternating: through the host's handle; through every phase of the
// executor (find, prepare and validate, hooks, approve, execute, normalize,
// result) with its tool.call and tool.result events committed to the
// SQLite store, as in a run, and with the events dropped; and, as the
// references, over go-plugin's connection to another process of the same
// plugin, a bare gRPC unary call (go-plugin's health check) and the raw
// Execute server stream of the no-op tool. "phases" returns once the
// result is handed to the background commit, as the loop goes on then;
// "phases+commit" is the same call until its result is committed.
func BenchmarkNoopCall(b *testing.B) {
	ctx := context.Background()
	h, th := host(b, testPlugin, "tp")
	defer h.Close()
	noop := sdk.ToolSpec{Name: "noop", InputSchema: json.RawMessage(`{"type":"object"}`)}
	ex := phases(b, th, true, noop)
	exNoStore := phases(b, th, false, noop)
	raw, conn, _ := bareTool(b, testPlugin)
	health := healthpb.NewHealthClient(conn)
	var viaHost, viaPhases, viaPhasesAwaited, viaPhasesNoStore, bareUnary, bareExecute timings
	c := call("noop", map[string]any{})
	rawReq := &toolv1.Execute_Request{CallId: "bench", Tool: "noop", ArgumentsJson: []byte(`{}`)}
	for b.Loop() {
		viaHost.time(func() {
			if _, err := th.Execute(ctx, c, nil); err != nil {
				b.Fatal(err)
			}
		})
		timeCall(b, ex, &viaPhases, &viaPhasesAwaited, "noop", map[string]any{})
		viaPhasesNoStore.time(func() { runCall(b, exNoStore, "noop", map[string]any{}) })
		bareUnary.time(func() {
			if _, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: "plugin"}); err != nil {
				b.Fatal(err)
			}
		})
		bareExecute.time(func() {
			stream, err := raw.Execute(ctx, rawReq)
			if err != nil {
				b.Fatal(err)
			}
			for {
				if _, err := stream.Recv(); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	ex.done(b)
	report(b, time.Microsecond, []string{"phases", "bare", "host", "phases-nostore", "bare-execute", "phases+commit"},
		viaPhases, bareUnary, viaHost, viaPhasesNoStore, bareExecute, viaPhasesAwaited)
}

// BenchmarkCall64KiB is a tool call whose result is 64 KiB, through every
// phase (events committed to the store; the executor caps what the model
// gets at 32 KiB head + tail), alternating with the same call made by
// go-plugin and the SDK's client alone to another process of the same
// plugin. "memory" is a tool that returns 64 KiB it holds (the harness's
// cost); "read_file" is the built-in reading a 64 KiB file (plus the
// tool's own work: reading, numbering lines, checking for binary content)
// of one line repeated, "read_file-source" the same of 64 KiB of Go source.
func BenchmarkCall64KiB(b *testing.B) {
	ctx := context.Background()
	ws := b.TempDir()
	body := strings.Repeat(strings.Repeat("x", 79)+"\n", 64<<10/80+1)[:64<<10]
	if err := os.WriteFile(filepath.Join(ws, "f.txt"), []byte(body), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "source.go"), testkit.GoSource(b, filepath.Join("..", "core", "session"), 64<<10), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg := sdk.PluginConfig{Workspace: ws, Config: json.RawMessage(`{}`)}
	for _, tc := range []struct {
		name, bin, plugin, tool string
		args                    map[string]any
	}{
		{"memory", testPlugin, "tp", "big", map[string]any{}},
		{"read_file", harnessBin, "readfile", "read_file", map[string]any{"path": "f.txt"}},
		{"read_file-source", harnessBin, "readfile", "read_file", map[string]any{"path": "source.go"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			h, th := host(b, tc.bin, tc.plugin)
			defer h.Close()
			if err := th.Configure(ctx, cfg); err != nil {
				b.Fatal(err)
			}
			info, err := th.Describe(ctx)
			if err != nil {
				b.Fatal(err)
			}
			ex := phases(b, th, true, info.Tools...)
			exNoStore := phases(b, th, false, info.Tools...)
			bareArgs := []string{tc.bin}
			if tc.bin == harnessBin {
				bareArgs = append(bareArgs, "plugin", "serve", tc.plugin)
			}
			_, _, sdkClient := bareTool(b, bareArgs...)
			if err := sdkClient.Configure(ctx, cfg); err != nil {
				b.Fatal(err)
			}
			c := call(tc.tool, tc.args)
			var viaPhases, viaPhasesAwaited, viaPhasesNoStore, bare timings
			var size int
			for b.Loop() {
				timeCall(b, ex, &viaPhases, &viaPhasesAwaited, tc.tool, tc.args)
				viaPhasesNoStore.time(func() { runCall(b, exNoStore, tc.tool, tc.args) })
				bare.time(func() {
					res, err := sdkClient.Execute(ctx, c, nil)
					if err != nil || res.Err != nil {
						b.Fatal(err, res.Err)
					}
					size = len(res.Content)
				})
			}
			ex.done(b)
			if size < 64<<10 {
				b.Fatalf("%s returned %d bytes, want at least 64 KiB", tc.tool, size)
			}
			report(b, time.Microsecond, []string{"phases", "bare", "phases-nostore", "phases+commit"}, viaPhases, bare, viaPhasesNoStore, viaPhasesAwaited)
			b.ReportMetric(float64(size)/1024, "result-KiB")
		})
	}
}
