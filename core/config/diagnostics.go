package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcled"
)

// WriteDiagnostics writes diagnostics for people with hcl's text writer: severity and
// summary, file:line:col and the enclosing block, the source lines with the range
// highlighted (underlined with carets when color is off), and the detail wrapped at width
// (0 = no wrapping).
func WriteDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, width uint, color bool) error {
	var buf bytes.Buffer
	tw := hcl.NewDiagnosticTextWriter(&buf, files, width, color)
	for _, d := range diags {
		buf.Reset()
		if err := tw.WriteDiagnostic(d); err != nil {
			return err
		}
		out := buf.Bytes()
		if d.Subject != nil {
			out = withColumn(out, d.Subject)
			if !color {
				out = withCarets(out, files[d.Subject.Filename], d.Subject)
			}
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
	return nil
}

// withColumn turns hcl's "on FILE line N" into "on FILE:N:COL".
func withColumn(out []byte, r *hcl.Range) []byte {
	old := fmt.Sprintf("  on %s line %d", r.Filename, r.Start.Line)
	loc := fmt.Sprintf("  on %s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
	return bytes.Replace(out, []byte(old), []byte(loc), 1)
}

// withCarets underlines the range on its first source line, for output without color.
func withCarets(out []byte, f *hcl.File, r *hcl.Range) []byte {
	if f == nil || !r.CanSliceBytes(f.Bytes) {
		return out
	}
	src := f.Bytes
	lineStart := bytes.LastIndexByte(src[:r.Start.Byte], '\n') + 1
	lineEnd := len(src)
	if i := bytes.IndexByte(src[r.Start.Byte:], '\n'); i >= 0 {
		lineEnd = r.Start.Byte + i
	}
	end := min(max(r.End.Byte, r.Start.Byte+1), lineEnd)
	var indent strings.Builder
	for _, c := range string(src[lineStart:r.Start.Byte]) {
		if c == '\t' {
			indent.WriteRune('\t')
		} else {
			indent.WriteRune(' ')
		}
	}
	carets := max(utf8.RuneCount(src[r.Start.Byte:max(end, r.Start.Byte)]), 1)
	prefix := fmt.Sprintf("%4d: ", r.Start.Line)
	snippetLine := append([]byte(prefix), src[lineStart:lineEnd]...)
	snippetLine = append(bytes.TrimRight(snippetLine, "\r"), '\n')
	i := bytes.Index(out, snippetLine)
	if i < 0 {
		return out
	}
	at := i + len(snippetLine)
	underline := strings.Repeat(" ", len(prefix)) + indent.String() + strings.Repeat("^", carets) + "\n"
	return slices.Concat(out[:at], []byte(underline), out[at:])
}

type jsonDiagnostic struct {
	Severity string       `json:"severity"`
	Summary  string       `json:"summary"`
	Detail   string       `json:"detail,omitempty"`
	Range    *jsonRange   `json:"range,omitempty"`
	Snippet  *jsonSnippet `json:"snippet,omitempty"`
}

type jsonRange struct {
	Filename string  `json:"filename"`
	Start    jsonPos `json:"start"`
	End      jsonPos `json:"end"`
}

type jsonPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// jsonSnippet follows Terraform's JSON diagnostics: the whole source lines of the range,
// the line the first of them has, and where the range lies within them (byte offsets).
type jsonSnippet struct {
	Context              string `json:"context,omitempty"`
	Code                 string `json:"code"`
	StartLine            int    `json:"start_line"`
	HighlightStartOffset int    `json:"highlight_start_offset"`
	HighlightEndOffset   int    `json:"highlight_end_offset"`
}

// DiagnosticsJSON renders diagnostics as a JSON array of objects
// {severity, summary, detail, range: {filename, start: {line, column, byte}, end}, snippet:
// {context, code, start_line, highlight_start_offset, highlight_end_offset}}; range and
// snippet are left out when unknown. No diagnostics render as [].
func DiagnosticsJSON(files map[string]*hcl.File, diags hcl.Diagnostics) ([]byte, error) {
	out := make([]jsonDiagnostic, 0, len(diags))
	for _, d := range diags {
		jd := jsonDiagnostic{Severity: "error", Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagWarning {
			jd.Severity = "warning"
		}
		if d.Subject != nil {
			r := *d.Subject
			jd.Range = &jsonRange{
				Filename: r.Filename,
				Start:    jsonPos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
				End:      jsonPos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
			}
			jd.Snippet = snippet(files[r.Filename], r)
		}
		out = append(out, jd)
	}
	return json.MarshalIndent(out, "", "  ")
}

func snippet(f *hcl.File, r hcl.Range) *jsonSnippet {
	if f == nil || !r.CanSliceBytes(f.Bytes) {
		return nil
	}
	src := f.Bytes
	start := bytes.LastIndexByte(src[:r.Start.Byte], '\n') + 1
	end := len(src)
	if i := bytes.IndexByte(src[r.End.Byte:], '\n'); i >= 0 {
		end = r.End.Byte + i
	}
	// A range that ends right after a newline ends on the line before.
	if r.End.Byte > r.Start.Byte && src[r.End.Byte-1] == '\n' {
		end = r.End.Byte - 1
	}
	if end < start {
		end = start
	}
	return &jsonSnippet{
		Context:              hcled.ContextString(f, r.Start.Byte),
		Code:                 string(src[start:end]),
		StartLine:            r.Start.Line,
		HighlightStartOffset: r.Start.Byte - start,
		HighlightEndOffset:   min(r.End.Byte, end) - start,
	}
}

// sortDiagnostics orders diagnostics by file and position; those without a range come first.
func sortDiagnostics(diags hcl.Diagnostics) {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		default:
			return a.Start.Byte < b.Start.Byte
		}
	})
}
