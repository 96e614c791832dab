package writefile

import (
	"github.com/harness-agent/harness/plugins/internal/workspace"
	"github.com/harness-agent/harness/sdk"
)

// checkApproved refuses a write when the host pinned the path it approved
// (the "approved_path" argument: the path the glob check or the person saw,
// symbolic links resolved) and name resolves to another file now, through
// this plugin's own root: a folder or link swapped between the approval
// and the write cannot redirect it. Without a pinned path (a host that
// does not pin) there is nothing to compare.
func checkApproved(tool string, fsys workspace.FS, name, approved string) error {
	if approved == "" {
		return nil
	}
	real, err := fsys.RealPath(name)
	if err != nil {
		return workspace.Explain(tool, fsys, name, err)
	}
	if real != approved {
		return sdk.Errorf(sdk.KindDenied, "%s: %q resolves to %q now, but %q was approved: a folder or link changed after the approval, so nothing was written. Check the path and call again", tool, name, real, approved)
	}
	return nil
}
