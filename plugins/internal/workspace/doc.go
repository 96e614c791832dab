// Package workspace is the confined file system that the built-in file
// tools (read_file, write_file) share.
//
// It owns three things. First, path resolution: a path the model gives is
// either relative to the workspace root or absolute and inside it, and it
// must stay inside after cleaning and after following every symbolic link.
// Anything else (a ".." that climbs out, an absolute path elsewhere, a
// symbolic link at any component that leads out, a NUL byte) is refused
// with an *sdk.Error of kind path_escape whose message names the path and
// the workspace. Second, the [FS] interface: an afero.Fs whose every name
// is confined that way, implemented on disk by [RootFS] on top of os.Root
// (so the kernel-level checks of os.Root back the resolver even when files
// change between the check and the use) and in memory by [NewMemFS] for
// tests of tool logic. Third, [WriteFile], the atomic write the write tool
// relies on, and [Explain], which turns file system errors into messages a
// model can act on.
//
// Decisions: absolute paths are accepted when they lie inside the
// workspace (models echo the absolute paths a terminal printed) and are
// made relative; absolute symbolic links that point inside are followed
// the same way (os.Root alone refuses every absolute link). Symbolic links
// that stay inside are allowed; a dangling one is followed to where its
// target would be, so a write through it creates the target, and only
// inside. ".." is applied lexically before links are followed, as os.Root
// does: "link/../a" is "a" whatever link points to.
//
// It does not own policy: which paths may be written without approval
// (permissions.write) is the core's decision, taken before a call reaches
// a plugin. Nor does it know about tools, arguments or presentation.
package workspace
