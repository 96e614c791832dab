package config

import (
	"strings"

	"github.com/harness-agent/harness/sdk"
)

// An agent's tools list holds tool names (sdk.ValidToolName) and MCP
// wildcards. The tools of an MCP server are registered as
// SERVER__tool; "SERVER__*" selects all of them. This file is the one
// definition of that syntax: the loader checks it, core/tools and
// core/mcp match names with it.

// MCPToolSeparator joins an MCP server's name and its tool's name: "everything__echo".
const MCPToolSeparator = "__"

// mcpWildcardSuffix ends the whitelist entry that selects every tool of a server.
const mcpWildcardSuffix = MCPToolSeparator + "*"

// MCPWildcard is the whitelist entry that selects every tool of MCP server: "everything__*".
func MCPWildcard(server string) string { return server + mcpWildcardSuffix }

// MCPWildcardServer returns the server whose every tool entry selects:
// "everything" for "everything__*".
func MCPWildcardServer(entry string) (server string, ok bool) {
	return strings.CutSuffix(entry, mcpWildcardSuffix)
}

// MCPServerOf returns the MCP server a tool name or whitelist entry names
// when it has the form SERVER__tool or SERVER__*. Whether that server is
// declared is for the caller to check: a plugin's tool may hold "__" too.
func MCPServerOf(name string) (server string, ok bool) {
	server, _, ok = strings.Cut(name, MCPToolSeparator)
	if !ok || server == "" {
		return "", false
	}
	return server, true
}

// Selects reports whether whitelist entry selects the tool named name: the
// same name, or a wildcard of the server whose tool name is.
func Selects(entry, name string) bool {
	if entry == name {
		return true
	}
	server, ok := MCPWildcardServer(entry)
	return ok && strings.HasPrefix(name, server+MCPToolSeparator)
}

// validToolEntry reports whether entry may appear in an agent's tools: a
// name providers accept, or a wildcard of a server whose tools could have
// one.
func validToolEntry(entry string) bool {
	if server, ok := MCPWildcardServer(entry); ok {
		return validMCPServerName(server)
	}
	return sdk.ValidToolName(entry)
}

// validMCPServerName reports whether name may name an mcp block: its
// tools' names (name + "__" + tool) must be valid, so name holds only the
// characters of a tool name, no "__", and leaves room for a tool name.
func validMCPServerName(name string) bool {
	return sdk.ValidToolName(name) && !strings.Contains(name, MCPToolSeparator) &&
		len(name)+len(MCPToolSeparator) < sdk.MaxToolNameLen
}

// FromPlugin reports whether a whitelisted tool must come from a plugin:
// it is neither the core's own tool nor one of a declared MCP server's.
func (c *Config) FromPlugin(tool string) bool {
	if tool == EmitArtifactTool {
		return false
	}
	server, ok := MCPServerOf(tool)
	return !ok || c.MCP(server) == nil
}
