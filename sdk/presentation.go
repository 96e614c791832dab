package sdk

// Presentation is the neutral view of a tool result for people; the CLI
// renders it. Exactly one of the concrete view types below implements it.
type Presentation interface {
	// PresentationKind is "terminal", "diff", "search", "file" or "text".
	PresentationKind() string
}

// TerminalView shows a command, its exit code and its (capped) output.
type TerminalView struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	Output   string `json:"output"`
}

// DiffView shows a unified diff of a written file.
type DiffView struct {
	Path    string `json:"path"`
	Unified string `json:"unified"`
}

// SearchHit is one matching line.
type SearchHit struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// SearchView shows search hits; Total counts every matching line, Hits may be capped.
type SearchView struct {
	Query string      `json:"query"`
	Total int         `json:"total"`
	Hits  []SearchHit `json:"hits"`
}

// FileView shows which lines of a file were read.
type FileView struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}

// TextView is plain text.
type TextView struct {
	Text string `json:"text"`
}

// PresentationKind implements Presentation.
func (TerminalView) PresentationKind() string { return "terminal" }

// PresentationKind implements Presentation.
func (DiffView) PresentationKind() string { return "diff" }

// PresentationKind implements Presentation.
func (SearchView) PresentationKind() string { return "search" }

// PresentationKind implements Presentation.
func (FileView) PresentationKind() string { return "file" }

// PresentationKind implements Presentation.
func (TextView) PresentationKind() string { return "text" }
