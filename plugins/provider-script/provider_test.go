package script_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/sdktest"

	script "github.com/harness-agent/harness/plugins/provider-script"
)

func scriptPath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func configJSON(t *testing.T, cfg script.Config) []byte {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func user(s string) sdk.Message { return sdk.Message{Role: sdk.RoleUser, Content: s} }

func TestConfigureErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  func(t *testing.T) []byte
		want string
	}{
		{"syntax error", file("bad_syntax.hcl"), "bad_syntax.hcl:2,"},
		{"invalid regex", file("bad_regex.hcl"), "bad_regex.hcl:6,3-22: Invalid match expression"},
		{"arguments not an object", file("bad_arguments.hcl"), "bad_arguments.hcl:3,17-30: Invalid arguments"},
		{"empty turn", file("bad_empty_turn.hcl"), "bad_empty_turn.hcl:4,1-5: Empty turn"},
		{"unknown fail kind", file("bad_fail_kind.hcl"), `bad_fail_kind.hcl:4,5-19: Unknown error kind; "flaky"`},
		{"unknown attribute", file("bad_attribute.hcl"), "bad_attribute.hcl:3,3-10: Unsupported argument"},
		{"every problem is reported", file("bad_multi.hcl"), "bad_multi.hcl:2,3-14: Invalid match expression; match is a Go regular expression: error parsing regexp: missing closing ]: `[`.\n" +
			testdataDir + "bad_multi.hcl:5,1-5: Empty turn"},
		{"missing file", file("nope.hcl"), "cannot read the script: open "},
		{"relative path", raw(`{"script":"testdata/session.hcl"}`), `script path "testdata/session.hcl" is not absolute`},
		{"no script", raw(`{}`), "no script"},
		{"not JSON", raw(`{`), "not valid JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := script.New().Configure(context.Background(), tc.cfg(t))
			var e *sdk.Error
			if !errors.As(err, &e) || e.Kind != sdk.KindInvalidRequest || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want invalid_request containing %q", err, tc.want)
			}
		})
	}
	// Through the plugin boundary the error keeps its kind and position.
	c := sdktest.ConnectProvider(t, script.New())
	err := c.Configure(context.Background(), file("bad_regex.hcl")(t))
	if sdk.KindOf(err) != sdk.KindInvalidRequest || !strings.Contains(err.Error(), "bad_regex.hcl:6,") {
		t.Fatalf("over gRPC: %v", err)
	}
}

var testdataDir = func() string {
	d, err := filepath.Abs("testdata")
	if err != nil {
		panic(err)
	}
	return d + string(filepath.Separator)
}()

func file(name string) func(t *testing.T) []byte {
	return func(t *testing.T) []byte { return configJSON(t, script.Config{Script: scriptPath(t, name)}) }
}

func raw(s string) func(t *testing.T) []byte { return func(*testing.T) []byte { return []byte(s) } }

func TestStreamCanceledDuringDelay(t *testing.T) {
	t.Parallel()
	p := script.New()
	if err := p.Configure(context.Background(), configJSON(t, script.Config{Script: scriptPath(t, "session.hcl"), ChunkSize: 1, DelayMS: 50})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Millisecond)
	defer cancel()
	begin := time.Now()
	err := p.Stream(ctx, sdk.StreamRequest{Messages: []sdk.Message{user("hi")}}, func(sdk.StreamChunk) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(begin) > 2*time.Second {
		t.Fatalf("error %v after %s", err, time.Since(begin))
	}
}

func TestStreamBeforeConfigure(t *testing.T) {
	t.Parallel()
	err := script.New().Stream(context.Background(), sdk.StreamRequest{}, func(sdk.StreamChunk) error { return nil })
	if sdk.KindOf(err) != sdk.KindInvalidRequest {
		t.Fatalf("error %v", err)
	}
}
