package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// Bridge connects a run to the MCP servers of a configuration. Servers
// start on first use and stop on Close. A Bridge is safe for concurrent
// use.
type Bridge struct {
	whitelist []string
	agent     string
	servers   []*server
	log       hclog.Logger
	closeOnce sync.Once
}

// ServerInfo describes a server and the tools it offers, for
// `harness plugins list`.
type ServerInfo struct {
	Name      string
	Transport string // TransportStdio or TransportHTTP
	Target    string // the command line or the URL
	Version   string // as the server reports it
	Tools     []ToolInfo
	Err       error // the server could not be started or asked
}

// ToolInfo is one tool of a server.
type ToolInfo struct {
	Name        string // as registered and whitelisted: SERVER__tool
	Original    string // as the server names it
	Description string
}

// New returns a bridge to the servers whose tools agent whitelists
// ("NAME__tool" or "NAME__*"), or to every server of cfg when agent is nil
// (plugins list). Nothing starts yet.
func New(cfg *config.Config, agent *config.Agent, logger hclog.Logger) *Bridge {
	if logger == nil {
		logger = hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off})
	}
	b := &Bridge{log: logger.Named("mcp")}
	var wanted []string
	if agent != nil {
		b.agent, b.whitelist = agent.Name, slices.Clone(agent.Tools)
		for _, t := range agent.Tools {
			if name, ok := config.MCPServerOf(t); ok && !slices.Contains(wanted, name) {
				wanted = append(wanted, name)
			}
		}
	}
	for _, m := range cfg.MCPServers {
		if agent != nil && !slices.Contains(wanted, m.Name) {
			continue
		}
		b.servers = append(b.servers, &server{cfg: m, base: cfg.Dir, dir: cfg.Workspace, log: b.log.With("server", m.Name)})
	}
	return b
}

// Register starts the bridge's servers, all at once, and adds their
// whitelisted tools to reg: every tool of a server whitelisted as
// "NAME__*", the named ones otherwise. Each is registered as NAME__tool
// (see ToolName) with the server's input schema, origin mcp and the
// block's approval. A whitelisted tool the server does not offer, two tools
// that share a name and a server that cannot start are errors.
func (b *Bridge) Register(ctx context.Context, reg *tools.Registry) error {
	lists := make([][]*mcp.Tool, len(b.servers))
	errs := make([]error, len(b.servers))
	var wg sync.WaitGroup
	for i, s := range b.servers {
		wg.Go(func() { lists[i], errs[i] = s.listTools(ctx) })
	}
	wg.Wait()
	for i, s := range b.servers {
		if errs[i] == nil {
			errs[i] = b.register(reg, s, lists[i])
		}
	}
	return errors.Join(errs...)
}

func (b *Bridge) register(reg *tools.Registry, s *server, list []*mcp.Tool) error {
	srv := s.cfg.Name
	all := slices.Contains(b.whitelist, config.MCPWildcard(srv))
	named, problems := toolNames(srv, list)
	var errs []error
	for _, t := range list {
		name := named[t.Name]
		if !all && (name == "" || !slices.Contains(b.whitelist, name)) {
			continue
		}
		if err := problems[t.Name]; err != nil {
			if !slices.Contains(errs, err) { // a clash is one error for two tools
				errs = append(errs, err)
			}
			continue
		}
		spec, err := toolSpec(name, t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, reg.Add(tools.Tool{
			Spec:     spec,
			Origin:   tools.OriginMCP,
			Owner:    srv,
			Approval: s.cfg.Approval,
			Timeout:  tools.FixedTimeout(s.cfg.Timeout),
			Source:   &source{srv: s, name: name, tool: t.Name},
		}))
	}
	names := slices.Sorted(maps.Values(named))
	for _, w := range b.whitelist {
		if config.Selects(config.MCPWildcard(srv), w) && w != config.MCPWildcard(srv) && !slices.Contains(names, w) {
			errs = append(errs, fmt.Errorf("agent %q lists %q, but mcp %q offers no such tool; it offers: %s",
				b.agent, w, srv, offered(names)))
		}
	}
	return errors.Join(errs...)
}

// toolNames maps the server's tool names to registry names. problems
// holds, by the server's name, the tools that cannot be registered: those
// with no valid name and those whose name another tool of the server has
// too (a configuration error once the agent selects one of them).
func toolNames(srv string, list []*mcp.Tool) (named map[string]string, problems map[string]error) {
	named, problems = map[string]string{}, map[string]error{}
	owner := map[string]string{}
	for _, t := range list {
		name, err := ToolName(srv, t.Name)
		if err != nil {
			problems[t.Name] = err
			continue
		}
		named[t.Name] = name
		if prev, ok := owner[name]; ok {
			clash := fmt.Errorf("mcp %q offers tools %q and %q, which are both named %q in harness; "+
				"only letters, digits, '_' and '-' are kept in a tool name", srv, prev, t.Name, name)
			problems[prev], problems[t.Name] = clash, clash
			continue
		}
		owner[name] = t.Name
	}
	return named, problems
}

func offered(names []string) string {
	if len(names) == 0 {
		return "no tools"
	}
	return strings.Join(names, ", ")
}

// toolSpec is what the registry and the model see of a server's tool.
// Capabilities follow the tool's annotations, which only hint: they decide
// whether calls of one turn may run at once, never approvals (every MCP
// call goes through the block's approval).
func toolSpec(name string, t *mcp.Tool) (sdk.ToolSpec, error) {
	schema := json.RawMessage(`{"type":"object"}`)
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return sdk.ToolSpec{}, fmt.Errorf("tool %q: input schema: %w", name, err)
		}
		schema = b
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	caps := sdk.Capabilities{Reads: true, Writes: true, Network: true}
	if a := t.Annotations; a != nil {
		caps.Writes = !a.ReadOnlyHint
		caps.Network = a.OpenWorldHint == nil || *a.OpenWorldHint
	}
	return sdk.ToolSpec{Name: name, Description: desc, InputSchema: schema, Capabilities: caps}, nil
}

// Servers starts every server of the bridge, all at once, and describes
// them; a server that fails is described with its error.
func (b *Bridge) Servers(ctx context.Context) []ServerInfo {
	out := make([]ServerInfo, len(b.servers))
	var wg sync.WaitGroup
	for i, s := range b.servers {
		out[i] = ServerInfo{Name: s.cfg.Name, Transport: s.transport(), Target: s.target()}
		wg.Go(func() {
			list, err := s.listTools(ctx)
			if err != nil {
				out[i].Err = err
				return
			}
			out[i].Version = s.serverVersion()
			for _, t := range list {
				name, err := ToolName(s.cfg.Name, t.Name)
				if err != nil {
					name = "(" + err.Error() + ")"
				}
				out[i].Tools = append(out[i].Tools, ToolInfo{Name: name, Original: t.Name, Description: t.Description})
			}
		})
	}
	wg.Wait()
	return out
}

// Close stops every server: each gets its stdin closed and SIGTERM, and is
// killed with its process group when it has not exited within 2 seconds.
func (b *Bridge) Close() {
	b.closeOnce.Do(func() {
		var wg sync.WaitGroup
		for _, s := range b.servers {
			wg.Go(s.close)
		}
		wg.Wait()
	})
}

// source runs the calls of one MCP tool.
type source struct {
	srv  *server
	name string // as registered
	tool string // as the server names it
}

var _ tools.Source = (*source)(nil)

func (s *source) Execute(ctx context.Context, call sdk.Call, _ sdk.Progress) (sdk.Result, error) {
	return s.srv.call(ctx, s.name, s.tool, call.Arguments), nil
}

// version is harness's version, for the initialize handshake.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
