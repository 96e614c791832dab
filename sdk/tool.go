package sdk

import (
	"context"
	"encoding/json"
	"fmt"
)

// Capabilities say what a tool may do. The host uses them for approvals: a
// third-party tool flagged Writes or Executes goes through the action
// pipeline unless its plugin block says approval = "allow".
type Capabilities struct {
	Reads    bool
	Writes   bool
	Executes bool
	Network  bool
}

// ToolSpec describes one tool to the host and, through it, to the model.
type ToolSpec struct {
	Name        string // see ValidToolName: [a-zA-Z0-9_-], at most 64 characters
	Description string // prose the model reads
	InputSchema json.RawMessage
	Capabilities
}

// PluginInfo is what a tool plugin reports about itself.
type PluginInfo struct {
	Name    string
	Version string
	Tools   []ToolSpec
	// ConfigSchema is a JSON Schema of the plugin's HCL config block; nil when it takes none.
	ConfigSchema json.RawMessage
}

// PluginConfig is handed to a plugin before its first call.
type PluginConfig struct {
	Workspace string          // absolute path of the workspace root
	Config    json.RawMessage // the plugin's config block as a JSON object ({} when absent)
	// Protected lists absolute paths (files or folders) the plugin must never
	// create, modify, rename or delete, even inside the workspace: the loaded
	// configuration files, the lock file, declared plugin binaries and the
	// session store. The host computes them; a tool that writes refuses them.
	Protected []string
}

// Call is one tool invocation.
type Call struct {
	ID        string
	Tool      string
	Arguments json.RawMessage
}

// Result is the outcome of a call. Content is what the model reads;
// Presentation is what people see. A failed call sets Err; Content may
// still explain the failure to the model.
type Result struct {
	Content      string
	Presentation Presentation
	Err          *Error
}

// Progress receives output while a call runs (for example terminal output).
type Progress func(stream, text string)

// ToolPlugin is what a tool plugin implements. Most authors use [ToolSet].
type ToolPlugin interface {
	Describe(ctx context.Context) (PluginInfo, error)
	Configure(ctx context.Context, cfg PluginConfig) error
	// Execute runs one call. An error return is reported to the model as a
	// failed call (an *Error keeps its kind, anything else is "internal").
	Execute(ctx context.Context, call Call, progress Progress) (Result, error)
}

// Tool is one tool of a [ToolSet].
type Tool struct {
	Spec ToolSpec
	Run  func(ctx context.Context, call Call, progress Progress) (Result, error)
}

// ToolSet implements [ToolPlugin] for a fixed list of tools.
type ToolSet struct {
	Name, Version string
	Tools         []Tool
	// ConfigSchema and OnConfigure are optional: a plugin that takes an HCL
	// config block declares its JSON Schema and receives the decoded value.
	ConfigSchema json.RawMessage
	OnConfigure  func(ctx context.Context, cfg PluginConfig) error
}

var _ ToolPlugin = (*ToolSet)(nil)

// Describe implements ToolPlugin.
func (s *ToolSet) Describe(context.Context) (PluginInfo, error) {
	info := PluginInfo{Name: s.Name, Version: s.Version, ConfigSchema: s.ConfigSchema}
	for _, t := range s.Tools {
		info.Tools = append(info.Tools, t.Spec)
	}
	return info, nil
}

// Configure implements ToolPlugin.
func (s *ToolSet) Configure(ctx context.Context, cfg PluginConfig) error {
	if s.OnConfigure == nil {
		return nil
	}
	return s.OnConfigure(ctx, cfg)
}

// Execute implements ToolPlugin.
func (s *ToolSet) Execute(ctx context.Context, call Call, progress Progress) (Result, error) {
	for _, t := range s.Tools {
		if t.Spec.Name == call.Tool {
			return t.Run(ctx, call, progress)
		}
	}
	return Result{}, Errorf(KindToolNotFound, "plugin %q has no tool %q", s.Name, call.Tool)
}

// DecodeArgs unmarshals call arguments into v, returning an invalid_args
// error the model can act on when they do not fit.
func DecodeArgs(call Call, v any) error {
	if err := json.Unmarshal(call.Arguments, v); err != nil {
		return &Error{Kind: KindInvalidArgs, Message: fmt.Sprintf("%s: arguments are not valid: %v", call.Tool, err)}
	}
	return nil
}
