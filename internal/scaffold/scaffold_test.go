package scaffold_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/internal/scaffold"
)

func TestWriteRefuses(t *testing.T) {
	t.Parallel()
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    scaffold.Options
		want string
	}{
		{"bad name", scaffold.Options{Name: "Word Count", Kind: "tool", Dir: t.TempDir()}, "lower-case letters"},
		{"bad kind", scaffold.Options{Name: "wc", Kind: "hook", Dir: t.TempDir()}, `use "tool" or "provider"`},
		{"not empty", scaffold.Options{Name: "wc", Kind: "tool", Dir: full}, "is not empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := scaffold.Write(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(full, "keep.txt")); err != nil || string(b) != "mine" {
		t.Fatalf("the non-empty directory was touched: %q, %v", b, err)
	}
}

func TestWriteReplace(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "wc")
	if _, err := scaffold.Write(scaffold.Options{Name: "wc", Kind: "tool", Dir: dir, Replace: "/src/harness"}); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !strings.Contains(string(mod), "replace "+scaffold.Module+" => /src/harness") {
		t.Fatalf("go.mod %s (%v), want the replace to the checkout", mod, err)
	}
	hcl, err := os.ReadFile(filepath.Join(dir, "agent.hcl"))
	if err != nil || !strings.Contains(string(hcl), `path = "./bin/harness-tool-wc"`) {
		t.Fatalf("agent.hcl %s (%v), want the plugin where main.go's build command puts it", hcl, err)
	}
}
