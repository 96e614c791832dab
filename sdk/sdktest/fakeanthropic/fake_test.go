package fakeanthropic_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/sdk/sdktest/fakeanthropic"
)

func post(t *testing.T, srv *fakeanthropic.Server, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(body))
	req.Header.Set("anthropic-version", "2023-06-01")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

const minimal = `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`

// TestFixtureReplayIsByteForByte: each line of a recorded file goes out as
// "event: <type>\ndata: <line>\n\n", nothing added, no [DONE].
func TestFixtureReplayIsByteForByte(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join(fakeanthropic.FixturesDir(t), "anthropic", "*.chunks.jsonl"))
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var head struct{ Type string }
			if err := json.Unmarshal([]byte(line), &head); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			want.WriteString("event: " + head.Type + "\ndata: " + line + "\n\n")
		}
		srv := fakeanthropic.New(t, fakeanthropic.Fixture(t, f))
		resp, got := post(t, srv, minimal, nil)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("%s: status %d, type %q", f, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: replay differs:\n%s\nwant\n%s", filepath.Base(f), got, want.Bytes())
		}
		if bytes.Contains(got, []byte("[DONE]")) {
			t.Errorf("%s: a [DONE] in an Anthropic stream", f)
		}
	}
}

// TestChecks: what the real API refuses, the fake refuses with the API's
// status and error shape.
func TestChecks(t *testing.T) {
	t.Parallel()
	tool := `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"x","input":{}}]}`
	thinking := func(sig string) string {
		return `{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"` + sig + `"},{"type":"text","text":"ok"}]}`
	}
	cc := `,"cache_control":{"type":"ephemeral"}`
	five := `{"type":"text","text":"a"` + cc + `}`
	tests := []struct {
		name, body, header, says string
		status                   int
	}{
		{"no key", minimal, "", "invalid x-api-key", 401},
		{"no version", minimal, "noversion", "anthropic-version", 400},
		{"no max_tokens", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "key", "max_tokens", 400},
		{"assistant first", `{"model":"m","max_tokens":5,"messages":[` + tool + `]}`, "key", "first message", 400},
		{"unanswered tool_use", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},` + tool + `,{"role":"user","content":"next"}]}`, "key", "without `tool_result`", 400},
		{"changed thinking", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},` + thinking("forged") + `,{"role":"user","content":"go"}]}`, "key", "Invalid `signature`", 400},
		{"five breakpoints", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[` + strings.Repeat(five+",", 4) + five + `]}]}`, "key", "maximum of 4", 400},
		{"final tool turn without thinking", `{"model":"m","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"hi"},` + tool + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}]}`, "key", "must start with a thinking block", 400},
		{"signed thinking", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},` + thinking(fakeanthropic.Sign("hmm")) + `,{"role":"user","content":"go"}]}`, "key", "", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeanthropic.New(t, fakeanthropic.Scripted(fakeanthropic.Turn{Text: "fine"}))
			srv.RequireKey("k")
			h := map[string]string{"x-api-key": "k"}
			switch tt.header {
			case "":
				h = nil
			case "noversion":
				h["anthropic-version"] = ""
			}
			resp, body := post(t, srv, tt.body, h)
			if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.says) {
				t.Fatalf("status %d body %s; want %d mentioning %q", resp.StatusCode, body, tt.status, tt.says)
			}
			if tt.status != 200 && !strings.Contains(string(body), `"type":"error"`) {
				t.Errorf("not an Anthropic error envelope: %s", body)
			}
		})
	}
}

// TestPrefixCacheAccounting: a request reads what an earlier one wrote up
// to its breakpoints, and moving the newest-message breakpoint turn by
// turn reads the previous turn's whole prompt.
func TestPrefixCacheAccounting(t *testing.T) {
	t.Parallel()
	srv := fakeanthropic.New(t)
	srv.Repeat(fakeanthropic.Scripted(fakeanthropic.Turn{Text: "fine"}))
	srv.SetMinCacheTokens(10)
	long := strings.Repeat("stable system prompt ", 20)
	msgs := []string{`{"role":"user","content":[{"type":"text","text":"task one","cache_control":{"type":"ephemeral"}}]}`}
	body := func(withCache bool) string {
		sys := `[{"type":"text","text":"` + long + `","cache_control":{"type":"ephemeral"}}]`
		if !withCache {
			sys = `[{"type":"text","text":"` + long + `"}]`
		}
		return `{"model":"m","max_tokens":5,"system":` + sys + `,"messages":[` + strings.Join(msgs, ",") + `]}`
	}
	post(t, srv, body(true), map[string]string{"x-api-key": "k"})
	msgs[0] = `{"role":"user","content":[{"type":"text","text":"task one"}]}`
	msgs = append(msgs, `{"role":"assistant","content":[{"type":"text","text":"fine"}]}`,
		`{"role":"user","content":[{"type":"text","text":"and now?","cache_control":{"type":"ephemeral"}}]}`)
	post(t, srv, body(true), map[string]string{"x-api-key": "k"})
	msgs[2] = `{"role":"user","content":[{"type":"text","text":"and now?"}]}`
	post(t, srv, body(false), map[string]string{"x-api-key": "k"})
	reqs := srv.Requests()
	first, second, third := reqs[0].Usage, reqs[1].Usage, reqs[2].Usage
	if first.CacheReadInputTokens != 0 || first.CacheCreationInputTokens == 0 || first.InputTokens != 0 {
		t.Errorf("first request: %+v, want all written", first)
	}
	if second.CacheReadInputTokens != first.CacheCreationInputTokens || second.CacheCreationInputTokens == 0 || second.InputTokens != 0 {
		t.Errorf("second request: %+v, want the first's %d tokens read and the rest written", second, first.CacheCreationInputTokens)
	}
	if third.CacheReadInputTokens != 0 || third.CacheCreationInputTokens != 0 || third.InputTokens == 0 {
		t.Errorf("a request without breakpoints: %+v, want nothing cached", third)
	}
	if reqs[1].Breakpoints != 2 {
		t.Errorf("breakpoints %d, want 2", reqs[1].Breakpoints)
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	srv := fakeanthropic.New(t)
	srv.SetModels("claude-a", "claude-b")
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/models", nil)
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Data []struct{ ID, Type string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || len(page.Data) != 2 || page.Data[1].ID != "claude-b" || page.Data[0].Type != "model" {
		t.Fatalf("models page %+v, %v", page, err)
	}
}
