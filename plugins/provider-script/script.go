package script

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/harness-agent/harness/sdk"
)

// turn is one scripted model answer.
type turn struct {
	match        *regexp.Regexp // nil: a turn of the sequence
	reasoning    string
	text         string
	toolCalls    []toolCall
	finishReason string // "" : tool_calls when there are calls, else stop
	usage        usageOverride
	fail         *failure
}

type toolCall struct {
	id, name, arguments string
}

type usageOverride struct {
	prompt, completion, cacheHit, cacheMiss, reasoning *int64
}

// failure makes the first times requests answered by a turn fail.
type failure struct {
	kind        sdk.ErrorKind
	message     string
	retryAfter  time.Duration
	times       int
	afterChunks int
}

// The HCL schema of a script file.
type scriptFile struct {
	Turns []turnBlock `hcl:"turn,block"`
}

type turnBlock struct {
	Match        *string         `hcl:"match,optional"`
	Reasoning    *string         `hcl:"reasoning,optional"`
	Text         *string         `hcl:"text,optional"`
	FinishReason *string         `hcl:"finish_reason,optional"`
	ToolCalls    []toolCallBlock `hcl:"tool_call,block"`
	Usage        *usageBlock     `hcl:"usage,block"`
	Fail         *failBlock      `hcl:"fail,block"`
	MatchRange   hcl.Range       `hcl:"match,attr_range"`
	DefRange     hcl.Range       `hcl:",def_range"`
}

type toolCallBlock struct {
	Name          string         `hcl:"name,label"`
	ID            *string        `hcl:"id,optional"`
	Arguments     hcl.Expression `hcl:"arguments,optional"`
	ArgumentsJSON *string        `hcl:"arguments_json,optional"`
	DefRange      hcl.Range      `hcl:",def_range"`
}

type usageBlock struct {
	PromptTokens     *int64 `hcl:"prompt_tokens,optional"`
	CompletionTokens *int64 `hcl:"completion_tokens,optional"`
	CacheHitTokens   *int64 `hcl:"cache_hit_tokens,optional"`
	CacheMissTokens  *int64 `hcl:"cache_miss_tokens,optional"`
	ReasoningTokens  *int64 `hcl:"reasoning_tokens,optional"`
}

type failBlock struct {
	Kind         string    `hcl:"kind"`
	Message      *string   `hcl:"message,optional"`
	RetryAfterMS *int64    `hcl:"retry_after_ms,optional"`
	Times        *int      `hcl:"times,optional"`
	AfterChunks  *int      `hcl:"after_chunks,optional"`
	KindRange    hcl.Range `hcl:"kind,attr_range"`
}

// failKinds are the error kinds a provider can report.
var failKinds = map[sdk.ErrorKind]bool{
	sdk.KindAuth: true, sdk.KindBilling: true, sdk.KindInvalidRequest: true, sdk.KindRateLimited: true,
	sdk.KindProviderUnavailable: true, sdk.KindTimeout: true, sdk.KindTruncated: true,
	sdk.KindStreamViolation: true, sdk.KindInternal: true,
}

// loadScript reads and checks a script file. Every problem in it is
// reported, each with the file, line and column it is about.
func loadScript(path string) ([]*turn, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the script: %w", err)
	}
	turns, diags := parseScript(src, path)
	if diags.HasErrors() {
		msgs := make([]string, 0, len(diags))
		for _, d := range diags {
			msgs = append(msgs, d.Error())
		}
		return nil, errors.New(strings.Join(msgs, "\n"))
	}
	return turns, nil
}

func parseScript(src []byte, filename string) ([]*turn, hcl.Diagnostics) {
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	var file scriptFile
	if diags = gohcl.DecodeBody(f.Body, nil, &file); diags.HasErrors() {
		return nil, diags
	}
	turns := make([]*turn, 0, len(file.Turns))
	for _, tb := range file.Turns {
		t, d := decodeTurn(tb)
		diags = append(diags, d...)
		turns = append(turns, t)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return turns, diags
}

func decodeTurn(tb turnBlock) (*turn, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	t := &turn{reasoning: deref(tb.Reasoning), text: deref(tb.Text), finishReason: deref(tb.FinishReason)}
	if tb.Match != nil {
		re, err := regexp.Compile(*tb.Match)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid match expression",
				Detail: fmt.Sprintf("match is a Go regular expression: %v.", err), Subject: tb.MatchRange.Ptr()})
		}
		t.match = re
	}
	for _, cb := range tb.ToolCalls {
		c, d := decodeToolCall(cb)
		diags = append(diags, d...)
		t.toolCalls = append(t.toolCalls, c)
	}
	if u := tb.Usage; u != nil {
		t.usage = usageOverride{u.PromptTokens, u.CompletionTokens, u.CacheHitTokens, u.CacheMissTokens, u.ReasoningTokens}
	}
	if fb := tb.Fail; fb != nil {
		f := &failure{kind: sdk.ErrorKind(fb.Kind), message: deref(fb.Message), times: 1}
		if !failKinds[f.kind] {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown error kind",
				Detail:  fmt.Sprintf("%q is not an error kind a provider reports (rate_limited, provider_unavailable, timeout, truncated, auth, billing, invalid_request, stream_violation, internal).", fb.Kind),
				Subject: fb.KindRange.Ptr()})
		}
		if f.message == "" {
			f.message = "scripted " + fb.Kind
		}
		if fb.RetryAfterMS != nil {
			f.retryAfter = time.Duration(*fb.RetryAfterMS) * time.Millisecond
		}
		if fb.Times != nil {
			f.times = *fb.Times
		}
		if fb.AfterChunks != nil {
			f.afterChunks = *fb.AfterChunks
		}
		t.fail = f
	}
	if t.reasoning == "" && t.text == "" && len(t.toolCalls) == 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Empty turn",
			Detail: "A turn needs at least one of reasoning, text or a tool_call block.", Subject: tb.DefRange.Ptr()})
	}
	return t, diags
}

func decodeToolCall(cb toolCallBlock) (toolCall, hcl.Diagnostics) {
	c := toolCall{id: deref(cb.ID), name: cb.Name, arguments: deref(cb.ArgumentsJSON)}
	v, diags := cb.Arguments.Value(nil)
	if diags.HasErrors() {
		return c, diags
	}
	switch {
	case v.IsNull():
	case cb.ArgumentsJSON != nil:
		return c, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Conflicting arguments",
			Detail: "Give arguments (an HCL object) or arguments_json (raw JSON text), not both.", Subject: cb.Arguments.Range().Ptr()}}
	case !v.Type().IsObjectType() && !v.Type().IsMapType():
		return c, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid arguments",
			Detail: "arguments must be an object, like { path = \"README.md\" }; use arguments_json for anything else.", Subject: cb.Arguments.Range().Ptr()}}
	default:
		b, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			return c, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid arguments", Detail: err.Error(), Subject: cb.Arguments.Range().Ptr()}}
		}
		c.arguments = string(b)
	}
	return c, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
