package readfile

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/harness-agent/harness/plugins/internal/workspace"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

// Limits of one call. A model reads the rest with offset.
const (
	maxLines     = 2000
	maxBytes     = 128 << 10
	maxLineBytes = 2000
	// countLimit bounds the reading done only to tell how many lines are left.
	countLimit = 16 << 20
)

const (
	toolName = "read_file"
	version  = "0.1.0"
)

//go:embed read_file.md
var description string

// New returns the read_file tool plugin. The workspace comes from the
// host's Configure call; a call before it fails with an internal error.
func New() *sdk.ToolSet {
	return newToolSet(new(workspace.Holder))
}

func newToolSet(ws *workspace.Holder) *sdk.ToolSet {
	return &sdk.ToolSet{
		Name:    "readfile",
		Version: version,
		Tools: []sdk.Tool{{
			Spec: sdk.ToolSpec{
				Name:        toolName,
				Description: description,
				InputSchema: schema.Object(
					schema.String("path", "File to read: relative to the workspace root, or absolute inside it.").Required(),
					schema.Integer("offset", "First line to return, 1-based. Default 1.").Min(1),
					schema.Integer("limit", "Number of lines to return. Default and maximum 2000.").Min(1),
				).JSON(),
				Capabilities: sdk.Capabilities{Reads: true},
			},
			Run: func(ctx context.Context, call sdk.Call, _ sdk.Progress) (sdk.Result, error) {
				fsys, err := ws.FS(toolName)
				if err != nil {
					return sdk.Result{}, err
				}
				return read(ctx, fsys, call)
			},
		}},
		OnConfigure: ws.Configure,
	}
}

type args struct {
	Path   string `json:"path"`
	Offset *int   `json:"offset"`
	Limit  *int   `json:"limit"`
}

// window returns the first line and the number of lines asked for, and
// whether the limit was lowered to the per-call maximum.
func (a args) window() (offset, limit int, clamped bool, err error) {
	offset, limit = 1, maxLines
	if a.Offset != nil {
		if *a.Offset < 1 {
			return 0, 0, false, sdk.Errorf(sdk.KindInvalidArgs, "%s: offset=%d: lines are numbered from 1", toolName, *a.Offset)
		}
		offset = *a.Offset
	}
	if a.Limit != nil {
		if *a.Limit < 1 {
			return 0, 0, false, sdk.Errorf(sdk.KindInvalidArgs, "%s: limit=%d: give at least 1 line", toolName, *a.Limit)
		}
		limit = min(*a.Limit, maxLines)
		clamped = *a.Limit > maxLines
	}
	return offset, limit, clamped, nil
}

func read(ctx context.Context, fsys workspace.FS, call sdk.Call) (sdk.Result, error) {
	var a args
	if err := sdk.DecodeArgs(call, &a); err != nil {
		return sdk.Result{}, err
	}
	offset, limit, clamped, err := a.window()
	if err != nil {
		return sdk.Result{}, err
	}
	rel, err := fsys.Resolve(a.Path)
	if err != nil {
		return sdk.Result{}, workspace.Explain(toolName, fsys, a.Path, err)
	}
	f, err := openText(fsys, a.Path)
	if err != nil {
		return sdk.Result{}, err
	}
	if f == nil {
		return sdk.Result{Content: fmt.Sprintf("%q is an empty file.", rel), Presentation: sdk.FileView{Path: rel}}, nil
	}
	defer f.Close()

	p := page{offset: offset, limit: limit, clamped: clamped}
	p.out.Grow(int(min(f.size+f.size/4, maxBytes))) // numbering adds about a quarter to source code
	var pastEnd pastEndError
	switch err := p.read(ctx, f.lines); {
	case errors.As(err, &pastEnd):
		return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, "%s: offset=%d is past the end of %q, which has %d lines", toolName, offset, a.Path, pastEnd.lines)
	case err != nil:
		return sdk.Result{}, workspace.Explain(toolName, fsys, a.Path, err)
	}
	return sdk.Result{
		Content:      p.String(),
		Presentation: sdk.FileView{Path: rel, StartLine: offset, EndLine: offset + p.shown - 1},
	}, nil
}

// textFile is an open text file, positioned at its start.
type textFile struct {
	afero.File
	size  int64
	lines *lineReader
}

// openText opens name when it is a non-empty text file. It returns a nil
// file for an empty one, and an *sdk.Error the model can act on for
// anything it cannot show.
func openText(fsys workspace.FS, name string) (*textFile, error) {
	f, fi, err := workspace.OpenRegular(fsys, name)
	if errors.Is(err, syscall.EISDIR) {
		return nil, sdk.Errorf(sdk.KindInvalidArgs, "%s: %q is a directory, not a file: list it with list_files", toolName, name)
	}
	if err != nil {
		return nil, workspace.Explain(toolName, fsys, name, err)
	}
	if fi.Size() == 0 {
		f.Close()
		return nil, nil
	}
	br := bufio.NewReaderSize(f, 64<<10)
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) {
		f.Close()
		return nil, workspace.Explain(toolName, fsys, name, err)
	}
	if typ, text := sniff(head); !text {
		f.Close()
		return nil, binaryError(name, typ, fi.Size())
	}
	return &textFile{File: f, size: fi.Size(), lines: &lineReader{r: br}}, nil
}

func binaryError(name, typ string, size int64) *sdk.Error {
	if strings.Contains(typ, "utf-16") {
		return sdk.Errorf(sdk.KindInvalidArgs, "%s: %q is UTF-16 text (%s, %d bytes): read_file shows UTF-8 text only", toolName, name, typ, size)
	}
	return sdk.Errorf(sdk.KindInvalidArgs, "%s: %q is a binary file (%s, %d bytes): read_file shows text files only", toolName, name, typ, size)
}

// page is the part of a file one call shows.
type page struct {
	offset, limit int
	clamped       bool // the limit asked for was over maxLines

	out         strings.Builder
	shown       int
	byteCapped  bool // stopped at maxBytes
	more        bool // lines follow the last one shown
	total       int  // lines in the file, when known
	totalKnown  bool
	crlf        bool
	invalidUTF8 bool
	noEOL       bool // the last line shown has no newline at its end
}

// pastEndError says the window starts after the last line.
type pastEndError struct{ lines int }

func (e pastEndError) Error() string { return fmt.Sprintf("the file has %d lines", e.lines) }

func (p *page) read(ctx context.Context, lr *lineReader) error {
	for n := 1; n < p.offset; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := lr.skip(); err == io.EOF {
			return pastEndError{lines: n - 1}
		} else if err != nil {
			return err
		}
	}
	rest := 0 // lines read but not shown
	var formatted []byte
	for p.shown < p.limit {
		if p.shown%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		l, err := lr.next(maxLineBytes)
		if err == io.EOF {
			if p.shown == 0 {
				return pastEndError{lines: p.offset - 1}
			}
			p.total, p.totalKnown = p.offset-1+p.shown, true
			return nil
		}
		if err != nil {
			return err
		}
		formatted = p.appendLine(formatted[:0], p.offset+p.shown, l)
		if p.out.Len()+len(formatted) > maxBytes {
			p.byteCapped, rest = true, 1
			break
		}
		p.out.Write(formatted)
		p.shown++
		p.noEOL = !l.eol
	}
	left, complete, err := countLines(lr.r, countLimit)
	if err != nil {
		return err
	}
	p.more = left+rest > 0 || !complete
	p.total, p.totalKnown = p.offset-1+p.shown+left+rest, complete
	return nil
}

// appendLine appends line n as read_file shows it: the number
// right-aligned in six columns, a tab, the text, a marker if it was cut.
func (p *page) appendLine(dst []byte, n int, l line) []byte {
	var num [20]byte
	digits := strconv.AppendInt(num[:0], int64(n), 10)
	for range 6 - len(digits) {
		dst = append(dst, ' ')
	}
	dst = append(dst, digits...)
	dst = append(dst, '\t')
	if utf8.Valid(l.text) {
		dst = append(dst, l.text...)
	} else {
		p.invalidUTF8 = true
		dst = append(dst, strings.ToValidUTF8(string(l.text), "\uFFFD")...)
	}
	if l.cut() {
		dst = fmt.Appendf(dst, " … [line truncated: %d of %d bytes shown]", len(l.text), l.size)
	}
	p.crlf = p.crlf || l.crlf
	return append(dst, '\n')
}

// String is the content the model reads: the numbered lines, then notes.
func (p *page) String() string {
	var notes []string
	if p.crlf {
		notes = append(notes, `… this file has CRLF (\r\n) line endings; the \r is not shown.`)
	}
	if p.invalidUTF8 {
		notes = append(notes, "… this file is not valid UTF-8; invalid bytes are shown as U+FFFD (\uFFFD).")
	}
	if p.noEOL && !p.more {
		notes = append(notes, fmt.Sprintf("… line %d, the last, has no newline at its end.", p.offset+p.shown-1))
	}
	if p.more {
		notes = append(notes, p.continuation())
	}
	if len(notes) == 0 {
		return p.out.String()
	}
	return p.out.String() + "\n" + strings.Join(notes, "\n") + "\n"
}

// continuation tells the model exactly how to read on.
func (p *page) continuation() string {
	last := p.offset + p.shown - 1
	shown := fmt.Sprintf("lines %d-%d", p.offset, last)
	if p.totalKnown {
		shown += fmt.Sprintf(" of %d", p.total)
	} else {
		shown += fmt.Sprintf("; more than %d MiB follow", countLimit>>20)
	}
	switch {
	case p.byteCapped:
		shown += fmt.Sprintf(" (one call returns at most %d KiB)", maxBytes>>10)
	case p.clamped:
		shown += fmt.Sprintf(" (one call returns at most %d lines)", maxLines)
	}
	return fmt.Sprintf("… showed %s; use offset=%d to continue.", shown, last+1)
}
