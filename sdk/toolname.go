package sdk

// MaxToolNameLen is the longest tool name every supported provider accepts
// (DeepSeek and OpenAI allow 64 characters; Anthropic 128). The host holds
// every tool to it, so that any agent may switch to any provider.
const MaxToolNameLen = 64

// ToolNameRule says in words what [ValidToolName] accepts, for messages
// that tell an author how to fix a name.
const ToolNameRule = "1 to 64 letters, digits, '_' or '-'"

// ToolNameRune reports whether r may appear in a tool name: an ASCII
// letter or digit, '_' or '-' (what DeepSeek allows: [a-zA-Z0-9_-]).
func ToolNameRune(r rune) bool {
	return r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// ValidToolName reports whether providers accept name as the name of a
// tool: 1 to [MaxToolNameLen] characters, each one [ToolNameRune] accepts.
// A [ToolSpec.Name] must be one; the host refuses to register any other.
func ValidToolName(name string) bool {
	if name == "" || len(name) > MaxToolNameLen {
		return false
	}
	for _, r := range name {
		if !ToolNameRune(r) {
			return false
		}
	}
	return true
}
