package sdk

import (
	"time"

	"github.com/harness-agent/harness/sdk/proto/commonv1"
)

func errorToProto(e *Error) *commonv1.Error {
	if e == nil {
		return nil
	}
	return &commonv1.Error{Kind: string(e.Kind), Message: e.Message, RetryAfterMs: e.RetryAfter.Milliseconds()}
}

func errorFromProto(e *commonv1.Error) *Error {
	if e == nil {
		return nil
	}
	return &Error{Kind: ErrorKind(e.Kind), Message: e.Message, RetryAfter: time.Duration(e.RetryAfterMs) * time.Millisecond}
}

func presentationToProto(p Presentation) *commonv1.Presentation {
	switch v := p.(type) {
	case TerminalView:
		return &commonv1.Presentation{View: &commonv1.Presentation_Terminal{Terminal: &commonv1.TerminalView{Command: v.Command, ExitCode: int32(v.ExitCode), Output: v.Output}}}
	case DiffView:
		return &commonv1.Presentation{View: &commonv1.Presentation_Diff{Diff: &commonv1.DiffView{Path: v.Path, Unified: v.Unified}}}
	case SearchView:
		hits := make([]*commonv1.SearchHit, len(v.Hits))
		for i, h := range v.Hits {
			hits[i] = &commonv1.SearchHit{Path: h.Path, Line: int32(h.Line), Text: h.Text}
		}
		return &commonv1.Presentation{View: &commonv1.Presentation_Search{Search: &commonv1.SearchView{Query: v.Query, Total: int64(v.Total), Hits: hits}}}
	case FileView:
		return &commonv1.Presentation{View: &commonv1.Presentation_File{File: &commonv1.FileView{Path: v.Path, StartLine: int32(v.StartLine), EndLine: int32(v.EndLine)}}}
	case TextView:
		return &commonv1.Presentation{View: &commonv1.Presentation_Text{Text: &commonv1.TextView{Text: v.Text}}}
	}
	return nil
}

func presentationFromProto(p *commonv1.Presentation) Presentation {
	switch v := p.GetView().(type) {
	case *commonv1.Presentation_Terminal:
		return TerminalView{Command: v.Terminal.Command, ExitCode: int(v.Terminal.ExitCode), Output: v.Terminal.Output}
	case *commonv1.Presentation_Diff:
		return DiffView{Path: v.Diff.Path, Unified: v.Diff.Unified}
	case *commonv1.Presentation_Search:
		hits := make([]SearchHit, len(v.Search.Hits))
		for i, h := range v.Search.Hits {
			hits[i] = SearchHit{Path: h.Path, Line: int(h.Line), Text: h.Text}
		}
		return SearchView{Query: v.Search.Query, Total: int(v.Search.Total), Hits: hits}
	case *commonv1.Presentation_File:
		return FileView{Path: v.File.Path, StartLine: int(v.File.StartLine), EndLine: int(v.File.EndLine)}
	case *commonv1.Presentation_Text:
		return TextView{Text: v.Text.Text}
	}
	return nil
}
