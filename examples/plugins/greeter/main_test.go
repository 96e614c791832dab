package main

import (
	"context"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk/sdktest"
)

// TestCannedReply runs the provider in-process over the real gRPC protocol.
func TestCannedReply(t *testing.T) {
	ctx := context.Background()
	client := sdktest.ConnectProvider(t, newProvider())
	if schema, err := client.SettingsSchema(ctx); err != nil || !strings.Contains(string(schema), `"reply"`) {
		t.Fatalf("settings schema %s, %v", schema, err)
	}
	if err := client.Configure(ctx, []byte(`{"reply":"Hi there."}`)); err != nil {
		t.Fatal(err)
	}
	models, err := client.Models(ctx)
	if err != nil || len(models) != 1 {
		t.Fatalf("models %v, %v", models, err)
	}
	text, err := sdktest.StreamText(t, client, models[0], "Say hello")
	if err != nil {
		t.Fatal(err)
	}
	if text != "Hi there." {
		t.Errorf("got %q, want the canned reply", text)
	}
}
