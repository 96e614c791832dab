package readfile

import (
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/harness-agent/harness/plugins/internal/workspace"
	"github.com/harness-agent/harness/sdk"
)

// The tool logic on an in-memory workspace, without gRPC or a disk.
func TestMemFS(t *testing.T) {
	t.Parallel()
	fsys := workspace.NewMemFS("/ws")
	if err := afero.WriteFile(fsys, "src/main.go", []byte(numbered(1, 30)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(fsys, "logo.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ws workspace.Holder
	ws.Set(fsys)
	tools := newToolSet(&ws)

	tests := []struct {
		name    string
		args    obj
		content string
		kind    sdk.ErrorKind
	}{
		{"window", obj{"path": "src/main.go", "offset": 29}, catN(29, 30), ""},
		{"absolute", obj{"path": "/ws/src/main.go", "offset": 5, "limit": 1}, catN(5, 5) + "\n… showed lines 5-5 of 30; use offset=6 to continue.\n", ""},
		{"escape", obj{"path": "../etc/passwd"}, `read_file: "../etc/passwd" is outside the workspace /ws`, sdk.KindPathEscape},
		{"absolute outside", obj{"path": "/etc/passwd"}, `read_file: "/etc/passwd" is outside the workspace /ws`, sdk.KindPathEscape},
		{"missing", obj{"path": "nope"}, `read_file: "nope" does not exist in the workspace /ws`, sdk.KindInvalidArgs},
		{"binary", obj{"path": "logo.png"}, `read_file: "logo.png" is a binary file (image/png, 16 bytes)`, sdk.KindInvalidArgs},
		{"directory", obj{"path": "src"}, `read_file: "src" is a directory`, sdk.KindInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, tools, tt.args)
			if tt.kind == "" {
				if res.Err != nil || res.Content != tt.content {
					t.Fatalf("got %q %+v, want %q", res.Content, res.Err, tt.content)
				}
				return
			}
			if res.Err == nil || res.Err.Kind != tt.kind || !strings.HasPrefix(res.Err.Message, tt.content) {
				t.Fatalf("got %+v, want %s %q", res.Err, tt.kind, tt.content)
			}
		})
	}
}
