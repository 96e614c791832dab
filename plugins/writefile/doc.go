// Package writefile is the write plugin: write_file creates a file of the
// workspace or replaces its whole content; edit_file replaces exact text in
// one (internal/textedit, which the host's approval pipeline shares to show
// the same diff before it asks). Both show what changed.
//
// It owns the write as the model sees it: the arguments, the decision
// between created, updated and unchanged (an identical write touches
// nothing, not even the modification time), the summary for the model
// (+N -M lines) and the unified diff for people (git-style a/ and b/
// labels, three lines of context, /dev/null for a new file). It also
// refuses, whatever was approved, a write to the host's protected paths
// (sdk.PluginConfig.Protected, compared on the resolved path and the
// file's identity) and a write whose name resolves to another file than
// the one the host approved (the approved_path argument the pipeline
// pins). The confinement of paths and the atomic write itself (temporary
// file, fsync, rename, parent directories, kept mode) belong to
// plugins/internal/workspace. Whether a write needs approval
// (permissions.write) is the host's decision, taken before the call
// reaches the plugin.
//
// [New] returns the plugin; cmd/harness-tool-writefile serves it on its own.
package writefile
