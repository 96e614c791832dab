package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	src, runs := counting()
	reg := newRegistry(t, tools.Tool{Spec: sdk.ToolSpec{Name: "read_file", InputSchema: readSchema}, Origin: tools.OriginBuiltin, Source: src})
	tests := []struct {
		name, args string
		want       []string // substrings of the message; none: the call is valid
	}{
		{"valid", `{"path":"a.go","offset":2}`, nil},
		{"wrong type", `{"path":"a.go","offset":"x"}`, []string{"read_file: invalid arguments: at /offset: got string, want integer"}},
		{"missing", `{"offset":1}`, []string{"at /: missing property 'path'"}},
		{"empty is an empty object", ``, []string{"missing property 'path'"}},
		{"extra", `{"path":"a","nope":1}`, []string{"additional properties 'nope' not allowed"}},
		{"below minimum", `{"path":"a","offset":0}`, []string{"at /offset:", "minimum"}},
		{"several", `{"path":1,"offset":"x"}`, []string{"at /path: got number, want string", "at /offset: got string, want integer"}},
		{"not JSON", `{"path":`, []string{"arguments are not valid JSON"}},
		{"trailing data", `{"path":"a"} {}`, []string{"data after the value"}},
		{"not an object", `["a"]`, []string{"must be a JSON object"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := newExecutor(t, reg, tools.Options{})
			before := runs()
			o := ex.Run(context.Background(), call("c"+string(rune('a'+i)), "read_file", tt.args))
			if tt.want == nil {
				if o.Result.Err != nil || runs() != before+1 {
					t.Fatalf("valid call: %+v", o.Result)
				}
				return
			}
			if errKind(o) != sdk.KindInvalidArgs {
				t.Fatalf("kind = %q, want invalid_args (%+v)", errKind(o), o.Result)
			}
			for _, w := range tt.want {
				if !strings.Contains(o.Result.Err.Message, w) {
					t.Errorf("message %q lacks %q", o.Result.Err.Message, w)
				}
			}
			if o.Result.Content == "" {
				t.Error("a failed call must still tell the model what happened")
			}
		})
	}
}

func TestVisibilityAndDefinitions(t *testing.T) {
	t.Parallel()
	src, runs := counting()
	pretty := json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\"b\": {\"type\": \"string\"}, \"a\": {\"type\": \"string\"}}\n}")
	reg := newRegistry(t,
		tools.Tool{Spec: sdk.ToolSpec{Name: "read_file", InputSchema: pretty}, Origin: tools.OriginBuiltin, Source: src},
		tool("terminal", src),
		tools.Tool{Spec: sdk.ToolSpec{Name: "ev__echo", InputSchema: objectSchema}, Origin: tools.OriginMCP, Owner: "ev", Source: src},
		tools.Tool{Spec: sdk.ToolSpec{Name: "ev__add", InputSchema: objectSchema}, Origin: tools.OriginMCP, Owner: "ev", Source: src},
		tools.Tool{Spec: sdk.ToolSpec{Name: "other__x", InputSchema: objectSchema}, Origin: tools.OriginMCP, Owner: "other", Source: src},
	)
	whitelist := []string{"terminal", "ev__*", "read_file", "terminal", "not_registered"}

	var names []string
	for _, d := range reg.Definitions(whitelist) {
		names = append(names, d.Name)
	}
	if want := []string{"terminal", "ev__add", "ev__echo", "read_file"}; !slices.Equal(names, want) {
		t.Errorf("definitions = %v, want %v", names, want)
	}
	got, _ := reg.Tool("read_file")
	def := reg.Definitions([]string{"read_file"})[0]
	if !bytes.Equal(def.Parameters, got.Spec.InputSchema) {
		t.Errorf("the schema shown (%s) is not the schema validated (%s)", def.Parameters, got.Spec.InputSchema)
	}
	if want := `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}}}`; string(def.Parameters) != want {
		t.Errorf("parameters = %s, want the schema compacted with its key order kept: %s", def.Parameters, want)
	}

	ex := newExecutor(t, reg, tools.Options{Whitelist: whitelist})
	tests := []struct {
		tool     string
		wantKind sdk.ErrorKind
	}{
		{"terminal", ""},
		{"ev__echo", ""},
		{"other__x", sdk.KindToolNotFound},
		{"write_file", sdk.KindToolNotFound},
	}
	for _, tt := range tests {
		o := ex.Run(context.Background(), call("c-"+tt.tool, tt.tool, `{}`))
		if errKind(o) != tt.wantKind {
			t.Errorf("%s: kind %q, want %q", tt.tool, errKind(o), tt.wantKind)
		}
		if tt.wantKind == sdk.KindToolNotFound && !strings.Contains(o.Result.Err.Message, "terminal, ev__add, ev__echo, read_file") {
			t.Errorf("%s: tool_not_found should name the available tools: %q", tt.tool, o.Result.Err.Message)
		}
	}
	if runs() != 2 {
		t.Errorf("sources ran %d times, want 2", runs())
	}
}

func TestRegistryRefuses(t *testing.T) {
	t.Parallel()
	src, _ := counting()
	reg := newRegistry(t, tool("terminal", src))
	tests := []struct {
		name string
		tool tools.Tool
		want string
	}{
		{"duplicate", tools.Tool{Spec: sdk.ToolSpec{Name: "terminal"}, Origin: tools.OriginPlugin, Owner: "x", Source: src}, `offered twice: by the core and by plugin "x"`},
		{"bad name", tool("a b", src), "tool name"},
		{"no source", tools.Tool{Spec: sdk.ToolSpec{Name: "nosrc"}}, "no source"},
		{"bad schema", tools.Tool{Spec: sdk.ToolSpec{Name: "bad", InputSchema: json.RawMessage(`{"type":12}`)}, Source: src}, "does not compile"},
		{"not JSON", tools.Tool{Spec: sdk.ToolSpec{Name: "bad2", InputSchema: json.RawMessage(`{`)}, Source: src}, "not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := reg.Add(tt.tool)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Add: %v, want an error with %q", err, tt.want)
			}
		})
	}
}
