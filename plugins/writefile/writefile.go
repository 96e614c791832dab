package writefile

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/harness-agent/harness/plugins/internal/workspace"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

const (
	toolName = "write_file"
	version  = "0.1.0"
	// newFileMode is the mode of a file write_file creates.
	newFileMode fs.FileMode = 0o644
	// maxFileBytes bounds a file the tools read before they replace it.
	maxFileBytes = 16 << 20
)

//go:embed write_file.md
var description string

// New returns the write plugin: write_file and edit_file. The workspace
// and the protected paths come from the host's Configure call; a call
// before it fails with an internal error.
func New() *sdk.ToolSet {
	return newToolSet(new(workspace.Holder))
}

func newToolSet(ws *workspace.Holder) *sdk.ToolSet {
	p := &plugin{ws: ws}
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
			Run: p.run(toolName, write),
		}, {
			Spec: sdk.ToolSpec{
				Name:         editToolName,
				Description:  editDescription,
				InputSchema:  editSchema,
				Capabilities: sdk.Capabilities{Writes: true},
			},
			Run: p.run(editToolName, edit),
		}},
		OnConfigure: p.configure,
	}
}

// plugin is the state both tools share: the workspace and the paths no
// write may touch.
type plugin struct {
	ws        *workspace.Holder
	protected protectedSet
}

func (p *plugin) configure(ctx context.Context, cfg sdk.PluginConfig) error {
	if err := p.ws.Configure(ctx, cfg); err != nil {
		return err
	}
	p.protected.set(cfg.Protected)
	return nil
}

// run hands a call of tool to do with the configured workspace.
func (p *plugin) run(tool string, do func(context.Context, *plugin, workspace.FS, sdk.Call) (sdk.Result, error)) func(context.Context, sdk.Call, sdk.Progress) (sdk.Result, error) {
	return func(ctx context.Context, call sdk.Call, _ sdk.Progress) (sdk.Result, error) {
		fsys, err := p.ws.FS(tool)
		if err != nil {
			return sdk.Result{}, err
		}
		return do(ctx, p, fsys, call)
	}
}

type args struct {
	Path         string  `json:"path"`
	Content      *string `json:"content"`
	ApprovedPath string  `json:"approved_path"` // set by the host, see checkApproved
}

func write(ctx context.Context, p *plugin, fsys workspace.FS, call sdk.Call) (sdk.Result, error) {
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
	if err := p.protected.check(toolName, fsys, a.Path); err != nil {
		return sdk.Result{}, err
	}
	if err := checkApproved(toolName, fsys, a.Path, a.ApprovedPath); err != nil {
		return sdk.Result{}, err
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

// current returns the content of the file name and whether it exists. It
// never blocks on a named pipe or a device: those are refused.
func current(fsys workspace.FS, name string) (string, bool, error) {
	f, fi, err := workspace.OpenRegular(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	if fi.Size() > maxFileBytes {
		return "", false, sdk.Errorf(sdk.KindInvalidArgs, "%q is %d bytes, over the %d MiB a write tool handles", name, fi.Size(), maxFileBytes>>20)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return "", false, err
	}
	if len(b) > maxFileBytes {
		return "", false, sdk.Errorf(sdk.KindInvalidArgs, "%q grew over the %d MiB a write tool handles while it was read", name, maxFileBytes>>20)
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
