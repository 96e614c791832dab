package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/harness-agent/harness/sdk"
)

func TestQuery(t *testing.T) {
	t.Parallel()
	doc := `{"items":[{"name":"a"},{"name":"b"}],"n":3}`
	tests := []struct {
		path, want string
		kind       sdk.ErrorKind
	}{
		{"items.1.name", `"b"`, ""},
		{"n", "3", ""},
		{"items.9", "", sdk.KindInvalidArgs},
		{"n.x", "", sdk.KindInvalidArgs},
		{"missing", "", sdk.KindInvalidArgs},
	}
	for _, tt := range tests {
		args, _ := json.Marshal(map[string]string{"document": doc, "path": tt.path})
		res, err := query(context.Background(), sdk.Call{Tool: "json_query", Arguments: args}, nil)
		if got := sdk.KindOf(err); got != tt.kind {
			t.Errorf("%s: kind %q, want %q (%v)", tt.path, got, tt.kind, err)
		}
		if err == nil && res.Content != tt.want {
			t.Errorf("%s: got %s want %s", tt.path, res.Content, tt.want)
		}
	}
}
