package config

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/harness-agent/harness/internal/testkit"
)

func TestWriteDiagnosticsGolden(t *testing.T) {
	t.Parallel()
	cfg, diags := loadTest("testdata/diag/agent.hcl")
	if !diags.HasErrors() {
		t.Fatal("fixture loads without errors")
	}
	var buf bytes.Buffer
	if err := WriteDiagnostics(&buf, cfg.Files, diags, 80, false); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "testdata/diag/agent.txt.golden", buf.Bytes())

	js, err := DiagnosticsJSON(cfg.Files, diags)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "testdata/diag/agent.json.golden", append(js, '\n'))
}

func TestDiagnosticsJSONShape(t *testing.T) {
	t.Parallel()
	cfg, diags := loadTest("testdata/diag/agent.hcl")
	diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "No range"})
	js, err := DiagnosticsJSON(cfg.Files, diags)
	if err != nil {
		t.Fatal(err)
	}
	type pos struct{ Line, Column, Byte int }
	var got []struct {
		Severity string
		Summary  string
		Detail   string
		Range    *struct {
			Filename   string
			Start, End pos
		}
		Snippet *struct {
			Context              string
			Code                 string
			StartLine            int `json:"start_line"`
			HighlightStartOffset int `json:"highlight_start_offset"`
			HighlightEndOffset   int `json:"highlight_end_offset"`
		}
	}
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(diags) {
		t.Fatalf("%d JSON diagnostics for %d diagnostics", len(got), len(diags))
	}
	for i, d := range got[:len(got)-1] {
		if d.Severity != "error" || d.Summary == "" || d.Detail == "" || d.Range == nil || d.Snippet == nil {
			t.Fatalf("diagnostic %d incomplete: %+v", i, d)
		}
		if d.Range.Filename != "testdata/diag/agent.hcl" || d.Range.Start.Line == 0 || d.Range.End.Byte < d.Range.Start.Byte {
			t.Errorf("diagnostic %d: bad range %+v", i, d.Range)
		}
		s := d.Snippet
		if s.StartLine != d.Range.Start.Line || s.HighlightStartOffset > s.HighlightEndOffset || s.HighlightEndOffset > len(s.Code) {
			t.Errorf("diagnostic %d: bad snippet %+v", i, s)
		}
		src := cfg.Files[d.Range.Filename].Bytes
		if want := string(src[d.Range.Start.Byte:d.Range.End.Byte]); s.Code[s.HighlightStartOffset:s.HighlightEndOffset] != want {
			t.Errorf("diagnostic %d: highlight %q, want %q", i, s.Code[s.HighlightStartOffset:s.HighlightEndOffset], want)
		}
	}
	last := got[len(got)-1]
	if last.Severity != "warning" || last.Range != nil || last.Snippet != nil {
		t.Errorf("diagnostic without range rendered as %+v", last)
	}

	empty, err := DiagnosticsJSON(nil, nil)
	if err != nil || string(empty) != "[]" {
		t.Errorf("DiagnosticsJSON(nil) = %s, %v; want []", empty, err)
	}
}
