package writefile

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
	if err := afero.WriteFile(fsys, "run.sh", []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
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
		unified string
	}{
		{"create", obj{"path": "a/b/c.txt", "content": "x\n"}, `created "a/b/c.txt" (1 line, 2 bytes).`, "",
			"--- /dev/null\n+++ b/a/b/c.txt\n@@ -0,0 +1 @@\n+x\n"},
		{"update", obj{"path": "/ws/run.sh", "content": "#!/bin/sh\necho bye\n"}, `updated "run.sh": +1 -1 lines (2 lines, 19 bytes now).`, "",
			"--- a/run.sh\n+++ b/run.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo hi\n+echo bye\n"},
		{"escape", obj{"path": "../x", "content": "x"}, `write_file: "../x" is outside the workspace /ws`, sdk.KindPathEscape, ""},
		{"absolute outside", obj{"path": "/etc/passwd", "content": "x"}, `write_file: "/etc/passwd" is outside the workspace /ws`, sdk.KindPathEscape, ""},
		{"directory", obj{"path": "a", "content": "x"}, `write_file: "a" is a directory`, sdk.KindInvalidArgs, ""},
	}
	for _, tt := range tests {
		res := call(t, tools, tt.args)
		if tt.kind != "" {
			if res.Err == nil || res.Err.Kind != tt.kind || !strings.HasPrefix(res.Err.Message, tt.content) {
				t.Errorf("%s: got %+v, want %s %q", tt.name, res.Err, tt.kind, tt.content)
			}
			continue
		}
		if res.Err != nil || res.Content != tt.content || res.Presentation.(sdk.DiffView).Unified != tt.unified {
			t.Errorf("%s: got %q %+v %+v", tt.name, res.Content, res.Presentation, res.Err)
		}
	}
	if fi, err := fsys.Stat("run.sh"); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh lost its mode: %v %v", fi.Mode(), err)
	}
	if got, _ := afero.ReadFile(fsys, "a/b/c.txt"); string(got) != "x\n" {
		t.Errorf("a/b/c.txt holds %q", got)
	}
}
