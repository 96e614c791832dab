package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/harness-agent/harness/core/config"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

//go:embed emit_artifact.md
var emitArtifactDescription string

// artifactKind is one artifact type: its payload schema and the Go value the
// validated payload is recorded as (defaults filled in, fields in order).
type artifactKind struct {
	schema *jsonschema.Schema
	decode func(payload []byte) (event.Data, error)
}

// Artifact payloads as recorded in artifact.<type> events.
type (
	NoteArtifact      = event.Note
	DecisionArtifact  = event.Decision
	ChecklistArtifact = event.Checklist
	ChecklistItem     = event.ChecklistItem
)

var artifactSchemas = map[string]string{
	"note": `{"type":"object","additionalProperties":false,"required":["title","body"],
		"properties":{"title":{"type":"string","minLength":1},"body":{"type":"string"}}}`,
	"decision": `{"type":"object","additionalProperties":false,"required":["title","options","chosen","rationale"],
		"properties":{"title":{"type":"string","minLength":1},"options":{"type":"array","minItems":1,"items":{"type":"string"}},
		"chosen":{"type":"string"},"rationale":{"type":"string"}}}`,
	"checklist": `{"type":"object","additionalProperties":false,"required":["title","items"],
		"properties":{"title":{"type":"string","minLength":1},"items":{"type":"array","items":{"type":"object",
		"additionalProperties":false,"required":["text"],"properties":{"text":{"type":"string","minLength":1},"done":{"type":"boolean"}}}}}}`,
}

// artifactTypes are the artifact types emit_artifact accepts.
var artifactTypes = []string{"note", "decision", "checklist"}

// artifactKinds compiles the payload schemas on first use: at package
// init every plugin process (the same binary) would pay for it.
var artifactKinds = sync.OnceValue(func() map[string]artifactKind {
	kinds := map[string]artifactKind{
		"note":      {decode: decodeAs[NoteArtifact]},
		"decision":  {decode: decodeDecision},
		"checklist": {decode: decodeAs[ChecklistArtifact]},
	}
	for name, k := range kinds {
		sch, err := compileSchema("artifact-"+name, []byte(artifactSchemas[name]), true)
		if err != nil {
			panic(err) // the schemas above are constants
		}
		k.schema = sch
		kinds[name] = k
	}
	return kinds
})

func decodeAs[T event.Data](payload []byte) (event.Data, error) {
	var v T
	err := json.Unmarshal(payload, &v)
	return v, err
}

func decodeDecision(payload []byte) (event.Data, error) {
	var d DecisionArtifact
	if err := json.Unmarshal(payload, &d); err != nil {
		return nil, err
	}
	if !slices.Contains(d.Options, d.Chosen) {
		return nil, fmt.Errorf("at /chosen: %q is not one of the options", d.Chosen)
	}
	return d, nil
}

var emitArtifactSchema = schema.Object(
	schema.String("type", "The artifact type.").Enum(artifactTypes...).Required(),
	schema.AnyObject("payload", "The artifact's content; its fields depend on type.").Required(),
).JSON()

// EmitArtifact returns the core's emit_artifact tool. It records each valid
// artifact as an artifact.<type> event through the executor's recorder.
func EmitArtifact() Tool {
	return Tool{
		Spec: sdk.ToolSpec{
			Name:        config.EmitArtifactTool,
			Description: strings.TrimSpace(emitArtifactDescription),
			InputSchema: emitArtifactSchema,
		},
		Origin: OriginBuiltin,
		Source: artifactSource{},
	}
}

type artifactSource struct{}

var _ Source = artifactSource{}

func (artifactSource) Execute(ctx context.Context, call sdk.Call, _ sdk.Progress) (sdk.Result, error) {
	var args struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := sdk.DecodeArgs(call, &args); err != nil {
		return sdk.Result{}, err
	}
	kind, ok := artifactKinds()[args.Type]
	if !ok {
		return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, "%s: unknown artifact type %q; the known types are %s",
			config.EmitArtifactTool, args.Type, strings.Join(artifactTypes, ", "))
	}
	if msg := validateJSON(kind.schema, args.Payload); msg != "" {
		return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, "%s: the payload of a %s is invalid: %s", config.EmitArtifactTool, args.Type, msg)
	}
	payload, err := kind.decode(args.Payload)
	if err != nil {
		return sdk.Result{}, sdk.Errorf(sdk.KindInvalidArgs, "%s: the payload of a %s is invalid: %v", config.EmitArtifactTool, args.Type, err)
	}
	rec := recorderFrom(ctx)
	if err := rec.Record(context.WithoutCancel(ctx), payload); err != nil {
		return sdk.Result{}, sdk.Errorf(sdk.KindInternal, "%s: the %s could not be recorded: %v", config.EmitArtifactTool, args.Type, err)
	}
	msg := fmt.Sprintf("Recorded the %s %q.", args.Type, titleOf(payload))
	return sdk.Result{Content: msg, Presentation: sdk.TextView{Text: msg}}, nil
}

func titleOf(payload event.Data) string {
	switch p := payload.(type) {
	case NoteArtifact:
		return p.Title
	case DecisionArtifact:
		return p.Title
	case ChecklistArtifact:
		return p.Title
	}
	return ""
}

type recorderKey struct{}

// withRecorder hands the call's recorder to the core's own tools.
func withRecorder(ctx context.Context, rec Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, rec)
}

func recorderFrom(ctx context.Context) Recorder {
	if rec, ok := ctx.Value(recorderKey{}).(Recorder); ok {
		return rec
	}
	return event.Discard
}
