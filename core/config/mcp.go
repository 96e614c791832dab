package config

import (
	"net/url"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/harness-agent/harness/sdk"
)

var mcpSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "command"},
		{Name: "env"},
		{Name: "url"},
		{Name: "approval"},
		{Name: "timeout"},
	},
}

func (l *loader) decodeMCP(it item) *MCPServer {
	m := &MCPServer{Name: it.name(), Approval: PolicyAsk, DeclRange: it.block.DefRange}
	a := l.attrs(it.src, l.content(it.block.Body, mcpSchema).Attributes)
	if !validMCPServerName(m.Name) {
		l.errorf(it.block.LabelRanges[0], "Invalid MCP server name",
			"mcp %q: its tools are named %q+tool, so the name may hold only letters, digits, '_' and '-', "+
				"no %q, and must leave room for the tool name within %d characters.",
			m.Name, m.Name+MCPToolSeparator, MCPToolSeparator, sdk.MaxToolNameLen)
	}
	if cmd, _, ok := a.strList("command"); ok {
		if len(cmd) == 0 || strings.TrimSpace(cmd[0]) == "" {
			a.errorf(a.rangeOf("command"), "Empty value", "command must start with the program to run.")
		}
		m.Command = cmd
	}
	if env, ok := a.strMap("env"); ok {
		m.Env = env
	}
	a.duration("timeout", &m.Timeout)
	if a.str("url", &m.URL) {
		if u, err := url.Parse(m.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			a.errorf(a.rangeOf("url"), "Invalid url", "url must be an http:// or https:// URL; got %q.", m.URL)
		}
	}
	a.enum("approval", &m.Approval, PolicyAllow, PolicyAsk, PolicyDeny)

	switch hasCmd, hasURL := a.has("command"), a.has("url"); {
	case !hasCmd && !hasURL:
		l.errorf(it.block.DefRange, "Missing MCP transport",
			"mcp %q needs command (a stdio server) or url (a streamable HTTP server).", m.Name)
	case hasCmd && hasURL:
		l.errorf(a.m["url"].Range, "Conflicting MCP transports",
			"mcp %q sets both command and url: keep command for a stdio server or url for an HTTP one.", m.Name)
	}
	if a.has("env") && !a.has("command") {
		l.errorf(a.m["env"].Range, "Unexpected env",
			"mcp %q: env sets the environment of the command; an HTTP server (url) has none.", m.Name)
	}
	return m
}
