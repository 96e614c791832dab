package writefile

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/harness-agent/harness/internal/textedit"
	"github.com/harness-agent/harness/plugins/internal/workspace"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

const editToolName = "edit_file"

//go:embed edit_file.md
var editDescription string

// maxDiffInContent bounds the diff the model gets back; people's view has
// all of it (within the registry's net).
const maxDiffInContent = 32 << 10

var editSchema = schema.Object(
	schema.String("path", "File to edit: relative to the workspace root, or absolute inside it.").Required(),
	schema.String("old_string", "The exact text to replace, as it is in the file (without read_file's line numbers)."),
	schema.String("new_string", "The text to put in its place."),
	schema.Boolean("replace_all", "Replace every occurrence of old_string, not just one.").Default(false),
	schema.Array("edits", "Several edits, applied in order, all or none; instead of old_string and new_string.", schema.Object(
		schema.String("old_string", "The exact text to replace.").Required(),
		schema.String("new_string", "The text to put in its place.").Required(),
		schema.Boolean("replace_all", "Replace every occurrence.").Default(false),
	)),
).JSON()

func edit(ctx context.Context, p *plugin, fsys workspace.FS, call sdk.Call) (sdk.Result, error) {
	var a textedit.Args
	if err := sdk.DecodeArgs(call, &a); err != nil {
		return sdk.Result{}, err
	}
	edits, err := a.List()
	if err != nil {
		return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, "%s: %v", editToolName, err)
	}
	fail := func(err error) (sdk.Result, error) {
		return sdk.Result{}, workspace.Explain(editToolName, fsys, a.Path, err)
	}
	rel, err := fsys.Resolve(a.Path)
	if err != nil {
		return fail(err)
	}
	if err := p.protected.check(editToolName, fsys, a.Path); err != nil {
		return sdk.Result{}, err
	}
	if err := checkApproved(editToolName, fsys, a.Path, a.ApprovedPath); err != nil {
		return sdk.Result{}, err
	}
	before, existed, err := current(fsys, a.Path)
	switch {
	case err != nil:
		return fail(err)
	case !existed:
		return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, "%s: %q does not exist: create it with write_file", editToolName, a.Path)
	case !isText(before):
		return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, "%s: %q is not UTF-8 text: edit_file changes text files only", editToolName, a.Path)
	}
	res, err := textedit.Apply(before, edits)
	if te := (*textedit.Error)(nil); errors.As(err, &te) {
		return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, "%s: %q: %s", editToolName, rel, te.Error())
	}
	if err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if err := workspace.WriteFile(fsys, a.Path, []byte(res.Text), newFileMode); err != nil {
		return fail(err)
	}
	d := unifiedDiff(rel, before, res.Text, true)
	return sdk.Result{
		Content:      editMessage(rel, res, d),
		Presentation: sdk.DiffView{Path: rel, Unified: d.unified},
	}, nil
}

// editMessage tells the model what changed: the counts, then the diff.
func editMessage(rel string, res textedit.Result, d diff) string {
	var b strings.Builder
	unit := "replacements"
	if res.Replacements == 1 {
		unit = "replacement"
	}
	fmt.Fprintf(&b, "edited %q: %d %s, +%d -%d lines (%s now).\n", rel, res.Replacements, unit, d.added, d.removed, size(res.Text))
	if len(d.unified) <= maxDiffInContent {
		b.WriteString(d.unified)
	} else {
		fmt.Fprintf(&b, "The diff is %d bytes, over the %d KiB shown here: read the changed lines with read_file.\n", len(d.unified), maxDiffInContent>>10)
	}
	return b.String()
}
