package search

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/harness-agent/harness/plugins/search/engine"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

const listToolName = "list_files"

//go:embed list_files.md
var listDescription string

func listSchema() []byte {
	return schema.Object(
		schema.String("pattern", "Glob of the paths to list, e.g. *.go (base names) or src/**/*_test.go (paths); default everything."),
		schema.String("path", "Sub-folder of the workspace to list; default the whole workspace."),
	).JSON()
}

type listArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

func (t *tool) list(ctx context.Context, call sdk.Call, _ sdk.Progress) (sdk.Result, error) {
	root, err := t.root(listToolName)
	if err != nil {
		return sdk.Result{}, err
	}
	var a listArgs
	if err := sdk.DecodeArgs(call, &a); err != nil {
		return sdk.Result{}, err
	}
	l, err := engine.List(ctx, root, engine.ListQuery{Pattern: a.Pattern, Path: a.Path})
	if err != nil {
		return sdk.Result{}, sdk.Errorf(sdk.AsError(err).Kind, "%s: %s", listToolName, sdk.AsError(err).Message)
	}
	content := renderList(a, l)
	return sdk.Result{Content: content, Presentation: sdk.TextView{Text: content}}, nil
}

// renderList writes one path a line, then a line that counts them and says
// how many were not shown.
func renderList(a listArgs, l engine.Listing) string {
	var b strings.Builder
	for _, e := range l.Entries {
		b.WriteString(e + "\n")
	}
	what := "entries"
	if a.Pattern != "" {
		what = fmt.Sprintf("entries match %q", a.Pattern)
	}
	if l.Total == 1 {
		what = "entry"
		if a.Pattern != "" {
			what = fmt.Sprintf("entry matches %q", a.Pattern)
		}
	}
	switch hidden := l.Total - len(l.Entries); {
	case l.Total == 0 && a.Pattern != "":
		fmt.Fprintf(&b, "no entries match %q", a.Pattern)
	case l.Total == 0:
		b.WriteString("no entries")
	case hidden > 0:
		fmt.Fprintf(&b, "%d %s; showing the first %d, %d not shown: narrow with pattern or path.", l.Total, what, len(l.Entries), hidden)
	default:
		fmt.Fprintf(&b, "%d %s", l.Total, what)
	}
	return b.String()
}
