// Package writefile is the write_file tool: it creates a file of the
// workspace or replaces its whole content, and shows what changed.
//
// It owns the write as the model sees it: the arguments, the decision
// between created, updated and unchanged (an identical write touches
// nothing, not even the modification time), the summary for the model
// (+N -M lines) and the unified diff for people (git-style a/ and b/
// labels, three lines of context, /dev/null for a new file). The
// confinement of paths and the atomic write itself (temporary file,
// fsync, rename, parent directories, kept mode) belong to
// plugins/internal/workspace. Whether a write needs approval
// (permissions.write) is the host's decision, taken before the call
// reaches the plugin.
//
// [New] returns the plugin; cmd/harness-tool-writefile serves it on its own.
package writefile
