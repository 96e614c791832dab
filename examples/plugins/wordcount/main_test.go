package main

import (
	"testing"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"
)

// TestCount runs the plugin in-process over the real gRPC protocol.
func TestCount(t *testing.T) {
	client := sdktest.ConnectTool(t, newPlugin())
	res, progress, err := sdktest.CallTool(t, client, "wordcount", map[string]string{"text": "one two  three"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "3 words" {
		t.Errorf("got %q, want %q", res.Content, "3 words")
	}
	if len(progress) != 1 || progress[0].Text != "counted 3 words\n" {
		t.Errorf("progress %v, want one line", progress)
	}
	if _, _, err := sdktest.CallTool(t, client, "wordcount", map[string]int{"text": 5}); sdk.KindOf(err) != sdk.KindInvalidArgs {
		t.Errorf("a number as text: %v, want an invalid_args error", err)
	}
}
