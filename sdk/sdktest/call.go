package sdktest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

// ProgressLine is one progress report of a call.
type ProgressLine struct {
	Stream, Text string
}

// CallTool calls tool on a connected plugin (see ConnectTool) with args
// (any value that marshals to a JSON object) and returns its result and
// the progress it reported, in order. A transport failure fails the test;
// a tool's error is in the returned error, with its kind (sdk.KindOf).
func CallTool(t testing.TB, c *sdk.ToolClient, tool string, args any) (sdk.Result, []ProgressLine, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatalf("arguments of %s: %v", tool, err)
	}
	var mu sync.Mutex
	var lines []ProgressLine
	res, err := c.Execute(context.Background(), sdk.Call{ID: "call_1", Tool: tool, Arguments: raw}, func(stream, text string) {
		mu.Lock()
		lines = append(lines, ProgressLine{stream, text})
		mu.Unlock()
	})
	if err != nil {
		t.Fatalf("calling %s: %v", tool, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if res.Err != nil {
		return res, lines, res.Err
	}
	return res, lines, nil
}

// Golden compares got with the file testdata/NAME.golden of the test's
// package; with UPDATE_GOLDEN=1 in the environment it writes the file
// instead.
func Golden(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with UPDATE_GOLDEN=1 to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file %s (UPDATE_GOLDEN=1 rewrites it):\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

// StreamText prepares model on a connected, configured provider (see
// ConnectProvider), streams one user message and returns the text the
// answer's text blocks carried. An error chunk is returned as the error.
func StreamText(t testing.TB, c *sdk.ProviderClient, model sdk.ModelInfo, prompt string) (string, error) {
	t.Helper()
	ctx := context.Background()
	h, err := c.PrepareCall(ctx, sdk.PrepareRequest{Model: model})
	if err != nil {
		return "", err
	}
	var text strings.Builder
	var failed *sdk.Error
	err = c.Stream(ctx, h, sdk.StreamRequest{Model: model, Messages: []sdk.Message{{Role: sdk.RoleUser, Content: prompt}}},
		func(ch sdk.StreamChunk) error {
			switch ch.Type {
			case sdk.ChunkBlockDelta:
				text.WriteString(ch.Text)
			case sdk.ChunkError:
				failed = ch.Err
			}
			return nil
		})
	if err == nil && failed != nil {
		err = failed
	}
	return text.String(), err
}
