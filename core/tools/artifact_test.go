package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

func TestEmitArtifact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      string
		wantEvent string // type of the artifact event; "" when refused
		wantData  string
		wantErr   []string
	}{
		{"note", `{"type":"note","payload":{"title":"Plan","body":"Do it."}}`, "artifact.note", `{"title":"Plan","body":"Do it."}`, nil},
		{"decision", `{"type":"decision","payload":{"title":"DB","options":["sqlite","pg"],"chosen":"sqlite","rationale":"embedded"}}`,
			"artifact.decision", `{"title":"DB","options":["sqlite","pg"],"chosen":"sqlite","rationale":"embedded"}`, nil},
		{"checklist with a default", `{"type":"checklist","payload":{"title":"Ship","items":[{"text":"tests","done":true},{"text":"docs"}]}}`,
			"artifact.checklist", `{"title":"Ship","items":[{"text":"tests","done":true},{"text":"docs","done":false}]}`, nil},
		{"note without body", `{"type":"note","payload":{"title":"Plan"}}`, "", "", []string{"payload of a note is invalid", "missing property 'body'"}},
		{"chosen not an option", `{"type":"decision","payload":{"title":"DB","options":["a"],"chosen":"b","rationale":"r"}}`, "", "", []string{`"b" is not one of the options`}},
		{"items of the wrong type", `{"type":"checklist","payload":{"title":"T","items":["x"]}}`, "", "", []string{"at /items/0: got string, want object"}},
		{"extra field", `{"type":"note","payload":{"title":"T","body":"b","tags":[]}}`, "", "", []string{"additional properties 'tags' not allowed"}},
		{"unknown type", `{"type":"poem","payload":{}}`, "", "", []string{"at /type:", "note", "decision", "checklist"}},
		{"no payload", `{"type":"note"}`, "", "", []string{"missing property 'payload'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &memRecorder{}
			ex := newExecutor(t, newRegistry(t, tools.EmitArtifact()), tools.Options{Recorder: rec})
			o := ex.Run(context.Background(), call("c", config.EmitArtifactTool, tt.args))
			var artifacts []recorded
			for _, e := range rec.events {
				if strings.HasPrefix(e.Type, event.ArtifactPrefix) {
					artifacts = append(artifacts, e)
				}
			}
			if tt.wantEvent == "" {
				if errKind(o) != sdk.KindInvalidArgs || len(artifacts) != 0 {
					t.Fatalf("want invalid_args and no artifact, got %+v, %d artifacts", o.Result, len(artifacts))
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(o.Result.Err.Message, w) {
						t.Errorf("message %q lacks %q", o.Result.Err.Message, w)
					}
				}
				return
			}
			if o.Result.Err != nil || len(artifacts) != 1 {
				t.Fatalf("outcome %+v, %d artifacts", o.Result, len(artifacts))
			}
			if artifacts[0].Type != tt.wantEvent || string(artifacts[0].Data) != tt.wantData {
				t.Errorf("event %s %s, want %s %s", artifacts[0].Type, artifacts[0].Data, tt.wantEvent, tt.wantData)
			}
			if !strings.HasPrefix(o.Result.Content, "Recorded the ") {
				t.Errorf("confirmation %q", o.Result.Content)
			}
		})
	}
}

func TestEmitArtifactSchemaIsShown(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, tools.EmitArtifact())
	def := reg.Definitions([]string{config.EmitArtifactTool})[0]
	var sch struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(def.Parameters, &sch); err != nil {
		t.Fatal(err)
	}
	if strings.Join(sch.Properties["type"].Enum, ",") != "note,decision,checklist" || len(sch.Required) != 2 {
		t.Errorf("schema %s", def.Parameters)
	}
	if !strings.Contains(def.Description, "checklist") {
		t.Errorf("description %q", def.Description)
	}
}
