package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/sdk"
)

// hashLen is the length of the hash suffix that keeps a shortened name
// unique: 8 hex digits of the original name's sha256.
const hashLen = 8

// ToolName is the name under which the tool of an MCP server is registered:
// server + "__" + tool. Providers accept only [a-zA-Z0-9_-] in at most 64
// characters (sdk.ValidToolName), so every other character of the tool's
// name becomes '_', and
// a name that would be too long is cut and ends with '_' and a hash of the
// original name. A tool with no name, or a server name that leaves no room
// for a shortened one, is an error.
func ToolName(server, tool string) (string, error) {
	if tool == "" {
		return "", fmt.Errorf("mcp %q offers a tool with an empty name", server)
	}
	prefix := server + config.MCPToolSeparator
	var b strings.Builder
	for _, r := range tool {
		if sdk.ToolNameRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	room := sdk.MaxToolNameLen - len(prefix)
	if len(name) <= room {
		return prefix + name, nil
	}
	if room < hashLen+2 {
		return "", fmt.Errorf("mcp %q: tool %q does not fit in a %d-character tool name after %q; give the mcp block a shorter name",
			server, tool, sdk.MaxToolNameLen, prefix)
	}
	sum := sha256.Sum256([]byte(tool))
	return prefix + name[:room-hashLen-1] + "_" + hex.EncodeToString(sum[:])[:hashLen], nil
}
