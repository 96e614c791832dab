package approval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/harness-agent/harness/core/shellpolicy"
)

// Protected is a path no tool call may create, modify, rename or delete,
// whatever the rules, a hook, "always" or --yes say: the control plane of
// the run (its configuration, lock file, plugin binaries, session store).
type Protected struct {
	Path string // absolute; a folder protects everything in it
	Why  string // what it is, for the refusal: "the agent's configuration"
	// NewHCL also protects .hcl files that do not exist yet directly in
	// the folder Path: a directory configuration loads every one of them.
	NewHCL bool
}

// ProtectedPaths returns the paths of list, for sdk.PluginConfig.Protected.
func ProtectedPaths(list []Protected) []string {
	out := make([]string, 0, len(list))
	for _, p := range list {
		if !p.NewHCL {
			out = append(out, p.Path)
		}
	}
	return out
}

// guard answers whether a path is protected. Paths are compared after
// resolving symlinks and "..", and by device and inode where the file
// exists, so that a symlink or a hard link to agent.hcl is agent.hcl.
type guard struct {
	entries []guarded
	suffix  string // after "PATH is WHY" in a refusal
}

type guarded struct {
	Protected
	real string
	info os.FileInfo // nil when the path does not exist (yet)
}

func newGuard(list []Protected, suffix string) *guard {
	g := &guard{suffix: suffix}
	for _, p := range list {
		if !filepath.IsAbs(p.Path) {
			continue
		}
		e := guarded{Protected: p, real: p.Path}
		if real, err := shellpolicy.RealPath(p.Path); err == nil {
			e.real = real
		}
		if fi, err := os.Stat(e.real); err == nil {
			e.info = fi
		}
		g.entries = append(g.entries, e)
	}
	return g
}

// refusal says why a write to path (absolute, or relative to workspace)
// is refused, or "" when path is not protected. ancestors also refuses a
// folder that holds a protected path (renaming or deleting it would
// take the protected file with it).
func (g *guard) refusal(workspace, path string, ancestors bool) string {
	if g == nil || len(g.entries) == 0 || path == "" {
		return ""
	}
	if !filepath.IsAbs(path) {
		path = workspace + string(filepath.Separator) + path
	}
	real, err := shellpolicy.RealPath(path)
	if err != nil {
		real = filepath.Clean(path)
	}
	fi, statErr := os.Stat(real)
	for _, e := range g.entries {
		hit := real == e.real || isWithin(real, e.real) ||
			(ancestors && isWithin(e.real, real)) ||
			(statErr == nil && e.info != nil && os.SameFile(fi, e.info))
		if e.NewHCL && filepath.Dir(real) == e.real &&
			strings.HasSuffix(real, ".hcl") && !strings.HasPrefix(filepath.Base(real), ".") {
			return fmt.Sprintf("%s would become part of the directory configuration %s, which is protected: no rule, answer or flag can allow it", real, e.real)
		}
		if hit && !e.NewHCL {
			what := e.Path
			if real != e.real {
				what = fmt.Sprintf("%s (%s)", real, e.Path)
			}
			return fmt.Sprintf("%s is %s%s", what, e.Why, g.suffix)
		}
	}
	return ""
}

// isWithin reports whether path is strictly inside dir.
func isWithin(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// byName refuses a relative path whose last element is the name of a
// protected file: where it lands is known only when the command runs (it
// changes directory first).
func (g *guard) byName(path string) string {
	base := filepath.Base(path)
	for _, e := range g.entries {
		if !e.NewHCL && filepath.Base(e.Path) == base {
			return fmt.Sprintf("%s may be %s (the command changes directory first), %s%s", path, e.Path, e.Why, g.suffix)
		}
	}
	return ""
}
