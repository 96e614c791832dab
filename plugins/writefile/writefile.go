package writefile

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/spf13/afero"

	"github.com/harness-agent/harness/plugins/internal/workspace"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

const (
	toolName = "write_file"
	version  = "0.1.0"
	// newFileMode is the mode of a file write_file creates.
	newFileMode fs.FileMode = 0o644
)

//go:embed write_file.md
var description string

// New returns the write_file tool plugin. The workspace comes from the
// host's Configure call; a call before it fails with an internal error.
func New() *sdk.ToolSet {
	return newToolSet(new(workspace.Holder))
}

func newToolSet(ws *workspace.Holder) *sdk.ToolSet {
	return &sdk.ToolSet{
		Name:    "writefile",
		Version: version,
		Tools: []sdk.Tool{{
			Spec: sdk.ToolSpec{
				Name:        toolName,
				Description: description,
				InputSchema: schema.Object(
					schema.String("path", "File to write: relative to the workspace root, or absolute inside it.").Required(),
					schema.String("content", "The complete new content of the file.").Required(),
				).JSON(),
				Capabilities: sdk.Capabilities{Writes: true},
			},
			Run: func(ctx context.Context, call sdk.Call, _ sdk.Progress) (sdk.Result, error) {
				fsys, err := ws.FS(toolName)
				if err != nil {
					return sdk.Result{}, err
				}
				return write(ctx, fsys, call)
			},
		}},
		OnConfigure: ws.Configure,
	}
}

type args struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func write(ctx context.Context, fsys workspace.FS, call sdk.Call) (sdk.Result, error) {
	var a args
	if err := sdk.DecodeArgs(call, &a); err != nil {
		return sdk.Result{}, err
	}
	if a.Content == nil {
		return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, `%s: content is missing: give the whole new content of the file ("" for an empty file)`, toolName)
	}
	content := *a.Content
	fail := func(err error) (sdk.Result, error) {
		return sdk.Result{}, workspace.Explain(toolName, fsys, a.Path, err)
	}

	rel, err := fsys.Resolve(a.Path)
	if err != nil {
		return fail(err)
	}
	before, existed, err := current(fsys, a.Path)
	if err != nil {
		return fail(err)
	}
	if existed && before == content {
		return sdk.Result{
			Content:      fmt.Sprintf("%q is unchanged: the content is identical, nothing was written (%s).", rel, size(content)),
			Presentation: sdk.DiffView{Path: rel},
		}, nil
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if err := workspace.WriteFile(fsys, a.Path, []byte(content), newFileMode); err != nil {
		return fail(err)
	}

	d := unifiedDiff(rel, before, content, existed)
	msg := fmt.Sprintf("created %q (%s).", rel, size(content))
	if existed {
		msg = fmt.Sprintf("updated %q: +%d -%d lines (%s now).", rel, d.added, d.removed, size(content))
	}
	return sdk.Result{Content: msg, Presentation: sdk.DiffView{Path: rel, Unified: d.unified}}, nil
}

// current returns the content of the file name and whether it exists.
func current(fsys workspace.FS, name string) (string, bool, error) {
	fi, err := fsys.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	case err != nil:
		return "", false, err
	case fi.IsDir():
		return "", false, &fs.PathError{Op: "write", Path: name, Err: syscall.EISDIR}
	case !fi.Mode().IsRegular():
		return "", false, sdk.Errorf(sdk.KindInvalidArgs, "%q is not a regular file (%s)", name, fi.Mode().Type())
	}
	b, err := afero.ReadFile(fsys, name)
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

func size(content string) string {
	lines := countLines(content)
	unit := "lines"
	if lines == 1 {
		unit = "line"
	}
	return fmt.Sprintf("%d %s, %d bytes", lines, unit, len(content))
}
