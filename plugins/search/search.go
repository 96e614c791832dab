package search

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/harness-agent/harness/plugins/search/engine"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

//go:embed search_workspace.md
var description string

// inputSchema is built by New, not at init: a process serving another
// plugin does not pay for it.
func inputSchema() []byte {
	return schema.Object(
		schema.String("query", "Literal text, or a Go regular expression when regex is true.").Required(),
		schema.Boolean("regex", "Treat query as a regular expression.").Default(false),
		schema.String("path", "Sub-folder or file of the workspace to search; default the whole workspace."),
		schema.String("glob", "Only files matching this glob, e.g. *.go or src/**/*.ts."),
		schema.Integer("max_results", "Maximum hits to return (total still counts all).").Min(1).Max(2000),
		schema.Integer("context_lines", "Lines of context around each hit.").Min(0).Max(engine.MaxContextLines),
		schema.Boolean("ignore_case", "Match case-insensitively.").Default(false),
	).JSON()
}

// New returns the search plugin: search_workspace and list_files.
func New() *sdk.ToolSet {
	t := &tool{}
	return &sdk.ToolSet{
		Name:    "search",
		Version: "1.0.0",
		Tools: []sdk.Tool{{
			Spec: sdk.ToolSpec{
				Name:         "search_workspace",
				Description:  description,
				InputSchema:  inputSchema(),
				Capabilities: sdk.Capabilities{Reads: true},
			},
			Run: t.run,
		}, {
			Spec: sdk.ToolSpec{
				Name:         listToolName,
				Description:  listDescription,
				InputSchema:  listSchema(),
				Capabilities: sdk.Capabilities{Reads: true},
			},
			Run: t.list,
		}},
		OnConfigure: t.configure,
	}
}

type tool struct {
	mu        sync.Mutex
	workspace string
}

func (t *tool) configure(_ context.Context, cfg sdk.PluginConfig) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.workspace = cfg.Workspace
	return nil
}

type args struct {
	Query        string `json:"query"`
	Regex        bool   `json:"regex"`
	Path         string `json:"path"`
	Glob         string `json:"glob"`
	MaxResults   int    `json:"max_results"`
	ContextLines int    `json:"context_lines"`
	IgnoreCase   bool   `json:"ignore_case"`
}

// root is the configured workspace, or an error naming tool.
func (t *tool) root(name string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.workspace == "" {
		return "", sdk.Errorf(sdk.KindInternal, "%s: the plugin was not configured with a workspace", name)
	}
	return t.workspace, nil
}

func (t *tool) run(ctx context.Context, call sdk.Call, _ sdk.Progress) (sdk.Result, error) {
	root, err := t.root("search_workspace")
	if err != nil {
		return sdk.Result{}, err
	}
	var a args
	if err := sdk.DecodeArgs(call, &a); err != nil {
		return sdk.Result{}, err
	}
	if a.Query == "" {
		return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, "search_workspace: query is empty")
	}
	res, err := engine.Search(ctx, root, engine.Query{
		Pattern: a.Query, Regex: a.Regex, Path: a.Path, Glob: a.Glob,
		MaxResults: a.MaxResults, ContextLines: a.ContextLines, IgnoreCase: a.IgnoreCase,
	})
	if err != nil {
		return sdk.Result{}, err
	}
	content, shown := render(a, res)
	view := sdk.SearchView{Query: a.Query, Total: res.Total, Hits: make([]sdk.SearchHit, shown)}
	for i, h := range res.Hits[:shown] {
		view.Hits[i] = sdk.SearchHit{Path: h.Path, Line: h.Line, Text: h.Text}
	}
	return sdk.Result{Content: content, Presentation: view}, nil
}

// maxOutputBytes bounds the hits one call returns, context lines included;
// the registry's safety net is well above it.
const maxOutputBytes = 64 << 10

// render writes hits as path:line:text (context lines as path-line-text,
// like grep) while they fit maxOutputBytes, then a summary line the model
// can act on: how many matching lines were found, how many are shown, and
// how to see the others. It returns the content and the hits it shows.
func render(a args, res engine.Result) (string, int) {
	var b, group strings.Builder
	shown := 0
	for i, h := range res.Hits {
		group.Reset()
		if a.ContextLines > 0 && i > 0 {
			group.WriteString("--\n")
		}
		for j, line := range h.Before {
			fmt.Fprintf(&group, "%s-%d-%s\n", h.Path, h.Line-len(h.Before)+j, line)
		}
		fmt.Fprintf(&group, "%s:%d:%s\n", h.Path, h.Line, h.Text)
		for j, line := range h.After {
			fmt.Fprintf(&group, "%s-%d-%s\n", h.Path, h.Line+1+j, line)
		}
		if b.Len()+group.Len() > maxOutputBytes {
			break
		}
		b.WriteString(group.String())
		shown++
	}
	switch hidden := res.Total - shown; {
	case res.Total == 0:
		fmt.Fprintf(&b, "no matches for %q", a.Query)
	case shown < len(res.Hits):
		fmt.Fprintf(&b, "%d matching lines in %d files; showing the first %d, which fill the %d KiB one call returns; %d not shown. Narrow the search with path, glob or a more precise query", res.Total, res.Files, shown, maxOutputBytes>>10, hidden)
		if a.ContextLines > 0 {
			b.WriteString(", or use fewer context_lines")
		}
		b.WriteString(".")
	case hidden > 0:
		fmt.Fprintf(&b, "%d matching lines in %d files; showing the first %d (max_results); %d not shown. Narrow the search with path, glob or a more precise query, or raise max_results.", res.Total, res.Files, shown, hidden)
	default:
		fmt.Fprintf(&b, "%d matching lines in %d files", res.Total, res.Files)
	}
	if n := len(res.Skipped); n > 0 {
		names := res.Skipped[:min(n, 5)]
		more := ""
		if n > len(names) {
			more = fmt.Sprintf(" and %d more", n-len(names))
		}
		fmt.Fprintf(&b, "\n%d files over %d MiB were not searched: %s%s. Search inside them with the terminal (grep -n).", n, engine.MaxFileBytes>>20, strings.Join(names, ", "), more)
	}
	return b.String(), shown
}
