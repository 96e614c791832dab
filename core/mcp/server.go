package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/sdk"
)

// Transports of ServerInfo.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// startTimeout bounds starting a server and its initialize handshake; npx
// may have to fetch the server's package first.
var startTimeout = 2 * time.Minute

// closeGrace is how long Close lets a server end by itself before it is
// killed.
const closeGrace = 2 * time.Second

// exitGrace is how long a call whose connection broke waits for the
// server's exit to be reaped, to tell a crash from a broken pipe.
const exitGrace = 2 * time.Second

// server is one mcp block: a session started on first use and started
// again on the call after it was lost.
type server struct {
	cfg  *config.MCPServer
	base string // the configuration's directory: a relative command's base
	dir  string // the workspace: a stdio server's working directory
	log  hclog.Logger

	mu      sync.Mutex // held while a session starts
	conn    *conn
	tools   []*mcp.Tool // as listed by the first session
	version string      // as the first session's server reported it
	closed  bool
}

// conn is one session with a server; proc is nil over HTTP.
type conn struct {
	session *mcp.ClientSession
	proc    *process
}

func (c *conn) alive() bool { return c.proc == nil || !c.proc.exited() }

// close ends the session; grace as in process.stop.
func (c *conn) close(grace time.Duration) {
	if c.proc != nil {
		c.proc.stop(grace)
	}
	_ = c.session.Close()
}

func (s *server) transport() string {
	if s.cfg.URL != "" {
		return TransportHTTP
	}
	return TransportStdio
}

func (s *server) target() string {
	if s.cfg.URL != "" {
		return s.cfg.URL
	}
	return strings.Join(s.cfg.Command, " ")
}

// connect returns the live session, starting one when there is none or
// the server exited since.
func (s *server) connect(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("mcp %q: harness is shutting down", s.cfg.Name)
	}
	if s.conn != nil && s.conn.alive() {
		return s.conn, nil
	}
	if s.conn != nil {
		s.log.Warn("server exited between calls; starting it again", "status", s.conn.proc.status())
		s.conn.close(0)
		s.conn = nil
	}
	c, err := s.start(ctx)
	if err != nil {
		return nil, err
	}
	s.conn = c
	return c, nil
}

// start starts the server (stdio) or connects to it (HTTP) and runs the
// initialize handshake.
func (s *server) start(ctx context.Context) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	// No capabilities: by default the SDK offers roots (an empty list),
	// which servers such as server-filesystem take over their arguments.
	client := mcp.NewClient(&mcp.Implementation{Name: "harness", Version: version()},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	if s.cfg.URL != "" {
		t := &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, DisableStandaloneSSE: true}
		cs, err := client.Connect(ctx, t, nil)
		if err != nil {
			return nil, s.startError(ctx, nil, false, err)
		}
		return &conn{session: cs}, nil
	}
	proc, err := startProcess(s.cfg, s.base, s.dir, s.log)
	if err != nil {
		return nil, sdk.Errorf(sdk.KindInternal, "%v", err)
	}
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: proc.stdout, Writer: proc.stdin}, nil)
	if err != nil {
		var rpcErr *jsonrpc.Error
		crashed := !errors.As(err, &rpcErr) && ctx.Err() == nil && proc.waitExit(exitGrace)
		proc.stop(0)
		return nil, s.startError(ctx, proc, crashed, err)
	}
	return &conn{session: cs, proc: proc}, nil
}

// startError explains a failed start; crashed says the server exited by
// itself.
func (s *server) startError(ctx context.Context, proc *process, crashed bool, err error) error {
	name := s.cfg.Name
	switch {
	case crashed:
		return sdk.Errorf(sdk.KindProcessExit, "mcp %q exited while starting (%s)%s", name, proc.status(), stderrNote(proc))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return sdk.Errorf(sdk.KindTimeout, "mcp %q (%s) did not complete the MCP handshake in time; it was stopped%s", name, s.target(), stderrNote(proc))
	case ctx.Err() != nil:
		return sdk.Errorf(sdk.KindCanceled, "mcp %q: canceled while starting", name)
	}
	return sdk.Errorf(sdk.KindInternal, "mcp %q (%s): MCP handshake failed: %v%s", name, s.target(), err, stderrNote(proc))
}

// listTools returns the server's tools, listed once: a server started
// again serves the tools registered from its first session.
func (s *server) listTools(ctx context.Context) ([]*mcp.Tool, error) {
	c, err := s.connect(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tools != nil {
		return s.tools, nil
	}
	tools := []*mcp.Tool{}
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp %q: list its tools: %w", s.cfg.Name, err)
		}
		tools = append(tools, t)
	}
	s.tools = tools
	if res := c.session.InitializeResult(); res != nil && res.ServerInfo != nil {
		s.version = res.ServerInfo.Version
	}
	return tools, nil
}

func (s *server) serverVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// call runs tools/call for the tool registered as name. A session that
// broke or hung is dropped, so that the next call starts a fresh one.
func (s *server) call(ctx context.Context, name, tool string, args json.RawMessage) sdk.Result {
	start := time.Now()
	c, err := s.connect(ctx)
	if err != nil {
		return sdk.Result{Err: sdk.AsError(fmt.Errorf("%s: %w", name, err))}
	}
	params := &mcp.CallToolParams{Name: tool}
	if len(args) > 0 {
		params.Arguments = args
	}
	res, err := c.session.CallTool(ctx, params)
	if err != nil {
		return sdk.Result{Err: s.callError(ctx, c, name, err, start)}
	}
	return toResult(name, res)
}

// callError turns a failed tools/call into a structured error.
func (s *server) callError(ctx context.Context, c *conn, name string, err error, start time.Time) *sdk.Error {
	srv := s.cfg.Name
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		s.drop(c)
		limit := time.Since(start)
		if d, ok := ctx.Deadline(); ok {
			limit = d.Sub(start)
		}
		return sdk.Errorf(sdk.KindTimeout, "%s: mcp %q did not answer within the call's deadline of %s; the server was stopped and starts again on the next call",
			name, srv, limit.Round(time.Millisecond))
	}
	if ctx.Err() != nil {
		return sdk.Errorf(sdk.KindCanceled, "%s was canceled", name)
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		kind := sdk.KindInternal
		if rpcErr.Code == jsonrpc.CodeInvalidParams {
			kind = sdk.KindInvalidArgs
		}
		return sdk.Errorf(kind, "%s: mcp %q refused the call: %s", name, srv, rpcErr.Message)
	}
	if c.proc != nil && c.proc.waitExit(exitGrace) {
		s.drop(c)
		return sdk.Errorf(sdk.KindProcessExit, "%s: mcp %q exited during the call (%s); it starts again on the next call%s",
			name, srv, c.proc.status(), stderrNote(c.proc))
	}
	s.drop(c)
	return sdk.Errorf(sdk.KindInternal, "%s: lost the connection to mcp %q: %v; it starts again on the next call", name, srv, err)
}

// drop ends a session that failed, unless a newer one replaced it already.
func (s *server) drop(c *conn) {
	s.mu.Lock()
	if s.conn == c {
		s.conn = nil
	}
	s.mu.Unlock()
	c.close(0)
}

// close ends the session for good.
func (s *server) close() {
	s.mu.Lock()
	c := s.conn
	s.conn, s.closed = nil, true
	s.mu.Unlock()
	if c != nil {
		c.close(closeGrace)
	}
}

// stderrNote quotes the end of a server's stderr for an error message: its
// last line on the message's first line (where one-line views cut), then
// the rest of the tail.
func stderrNote(p *process) string {
	if p == nil {
		return ""
	}
	end := p.stderr.end()
	if end == "" {
		return "; it wrote nothing to stderr"
	}
	last := end[strings.LastIndexByte(end, '\n')+1:]
	if last == end {
		return "; its stderr ends with: " + last
	}
	return "; its stderr ends with: " + last + "\nthe end of its stderr:\n" + end
}
