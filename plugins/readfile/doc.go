// Package readfile is the read_file tool: it shows a text file of the
// workspace to the model as numbered lines, a window of it at a time.
//
// It owns the reading: the offset/limit window, the per-call caps (2000
// lines, 256 KiB, 2000 bytes per line) with a closing note that says
// which offset reads on, the refusal of binary files by their detected
// type, and UTF-8 safety at every cut. Where a path may lead and the
// messages for paths that leave the workspace belong to
// plugins/internal/workspace; whether a read needs approval (it does not)
// and capping the content once more belong to the host.
//
// [New] returns the plugin; cmd/harness-tool-readfile serves it on its own.
package readfile
