package fakedeepseek_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness-agent/harness/sdk/sdktest/fakedeepseek"
)

func post(t *testing.T, url string, body string, header map[string]string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

const simpleBody = `{"model":"deepseek-v4-flash","messages":[{"role":"user","content":"hi"}],"stream":true}`

func TestFixtureReplayIsByteExact(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(fakedeepseek.FixturesDir(t), "deepseek")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	synthetic, _ := filepath.Glob(filepath.Join(dir, "synthetic", "*"))
	n := 0
	for _, f := range append(files, synthetic...) {
		if !strings.HasSuffix(f, ".sse") && !strings.HasSuffix(f, ".jsonl") {
			continue
		}
		n++
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := raw
		if strings.HasSuffix(f, ".chunks.jsonl") {
			var b bytes.Buffer
			for _, line := range strings.Split(string(raw), "\n") {
				if line != "" {
					b.WriteString("data: " + line + "\n\n")
				}
			}
			b.WriteString("data: [DONE]\n\n")
			want = b.Bytes()
		}
		srv := fakedeepseek.New(t, fakedeepseek.Fixture(t, f))
		resp, got, err := post(t, srv.URL+"/chat/completions", simpleBody, nil)
		if err != nil || resp.StatusCode != 200 || !bytes.Equal(got, want) {
			t.Errorf("%s: status %d err %v, body differs (%d bytes, want %d)", filepath.Base(f), resp.StatusCode, err, len(got), len(want))
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			t.Errorf("content type %q", ct)
		}
	}
	if n < 17 {
		t.Errorf("only %d fixtures replayed", n)
	}
}

func TestQueueRepeatAndRecording(t *testing.T) {
	t.Parallel()
	srv := fakedeepseek.New(t, fakedeepseek.Chunks(`{"n":1}`), fakedeepseek.Chunks(`{"n":2}`))
	for i, want := range []string{`{"n":1}`, `{"n":2}`} {
		_, got, _ := post(t, srv.URL+"/v1/chat/completions", simpleBody, map[string]string{"X-Try": "yes"})
		if !strings.HasPrefix(string(got), "data: "+want+"\n\n") {
			t.Errorf("response %d: %q", i, got)
		}
	}
	resp, got, _ := post(t, srv.URL+"/chat/completions", simpleBody, nil)
	if resp.StatusCode != 500 || !strings.Contains(string(got), "fakedeepseek_queue_empty") {
		t.Errorf("empty queue: %d %s", resp.StatusCode, got)
	}
	srv.Repeat(fakedeepseek.Chunks(`{"n":"again"}`))
	for range 2 {
		if _, got, _ := post(t, srv.URL+"/chat/completions", simpleBody, nil); !strings.Contains(string(got), "again") {
			t.Errorf("repeat: %q", got)
		}
	}
	resp, _, _ = post(t, srv.URL+"/models", simpleBody, nil)
	if resp.StatusCode != 404 {
		t.Errorf("wrong path answered %d", resp.StatusCode)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests recorded, want 6", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/chat/completions" || r.Header.Get("X-Try") != "yes" || string(r.Raw) != simpleBody || r.Body["model"] != "deepseek-v4-flash" {
		t.Errorf("first request recorded as %+v", r)
	}
}

func TestRequireKey(t *testing.T) {
	t.Parallel()
	srv := fakedeepseek.New(t)
	srv.RequireKey("sk-right")
	srv.Repeat(fakedeepseek.Scripted(fakedeepseek.Turn{Text: "ok"}))
	tests := []struct {
		auth   string
		status int
		says   string
	}{
		{"", 401, "auth header format should be Bearer sk-..."},
		{"Bearer sk-wrong-9f8e", 401, "Your api key: ****9f8e is invalid"},
		{"Bearer sk-right", 200, `"content":"ok"`},
	}
	for _, tt := range tests {
		resp, got, _ := post(t, srv.URL+"/chat/completions", simpleBody, map[string]string{"Authorization": tt.auth})
		if resp.StatusCode != tt.status || !strings.Contains(string(got), tt.says) {
			t.Errorf("auth %q: %d %s", tt.auth, resp.StatusCode, got)
		}
		if tt.status == 401 && !strings.Contains(string(got), `"type":"authentication_error"`) {
			t.Errorf("401 body is not DeepSeek-shaped: %s", got)
		}
	}
}

// events splits an SSE body the simple way (the fake writes LF-only
// events) and returns the data payloads.
func events(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	for _, ev := range strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n") {
		if data, ok := strings.CutPrefix(ev, "data: "); ok {
			out = append(out, data)
		}
	}
	return out
}

type chunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Role             string  `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens          int64 `json:"prompt_tokens"`
		CompletionTokens      int64 `json:"completion_tokens"`
		TotalTokens           int64 `json:"total_tokens"`
		PromptCacheHitTokens  int64 `json:"prompt_cache_hit_tokens"`
		PromptCacheMissTokens int64 `json:"prompt_cache_miss_tokens"`
		PromptTokensDetails   struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails *struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
}

func TestScriptedTurn(t *testing.T) {
	t.Parallel()
	srv := fakedeepseek.New(t, fakedeepseek.Scripted(fakedeepseek.Turn{
		Reasoning: "Think <twice> 思考.",
		Text:      "Answer: ",
		ToolCalls: []fakedeepseek.ToolCall{{Name: "a", Arguments: `{"x":"é"}`}, {ID: "mine", Name: "b", Arguments: `{}`}},
		Fragment:  3,
	}))
	_, body, _ := post(t, srv.URL+"/chat/completions", simpleBody, nil)
	data := events(t, body)
	if data[len(data)-1] != "[DONE]" {
		t.Fatalf("no [DONE] at the end: %q", data[len(data)-1])
	}
	if strings.Contains(string(body), `\u003c`) {
		t.Error("HTML escaping in chunks; DeepSeek sends < as is")
	}
	var reasoning, text string
	type call struct{ id, typ, name, args string }
	calls := map[int]*call{}
	var last chunk
	for i, d := range data[:len(data)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("event %d is not JSON: %v", i, err)
		}
		if c.Model != "deepseek-v4-flash" || len(c.Choices) != 1 {
			t.Fatalf("event %d: %s", i, d)
		}
		delta := c.Choices[0].Delta
		if i == 0 && (delta.Role != "assistant" || delta.ReasoningContent == nil || *delta.ReasoningContent != "" || delta.Content != nil) {
			t.Errorf("first delta %s", d)
		}
		if delta.ReasoningContent != nil {
			reasoning += *delta.ReasoningContent
		}
		if delta.Content != nil {
			text += *delta.Content
		}
		for _, tc := range delta.ToolCalls {
			c := calls[tc.Index]
			if c == nil {
				c = &call{id: tc.ID, typ: tc.Type, name: tc.Function.Name}
				calls[tc.Index] = c
			}
			c.args += tc.Function.Arguments
		}
		if i < len(data)-2 && (c.Usage != nil || c.Choices[0].FinishReason != nil) {
			t.Errorf("event %d carries usage or a finish reason before the end", i)
		}
		last = c
	}
	if reasoning != "Think <twice> 思考." || text != "Answer: " {
		t.Errorf("reasoning %q text %q", reasoning, text)
	}
	if len(calls) != 2 || calls[0].name != "a" || calls[0].args != `{"x":"é"}` || !strings.HasPrefix(calls[0].id, "call_00_") ||
		calls[0].typ != "function" || calls[1].id != "mine" || calls[1].args != `{}` {
		t.Errorf("calls %+v %+v", calls[0], calls[1])
	}
	u := last.Usage
	if last.Choices[0].FinishReason == nil || *last.Choices[0].FinishReason != "tool_calls" || u == nil {
		t.Fatalf("last chunk %+v", last)
	}
	// The prompt is the "messages" JSON as sent (no tools here).
	wantPrompt := int64((len(`[{"role":"user","content":"hi"}]`) + 3) / 4)
	wantReasoning := int64((len("Think <twice> 思考.") + 3) / 4)
	if u.PromptTokens != wantPrompt || u.PromptCacheHitTokens != 0 || u.PromptCacheMissTokens != wantPrompt || u.PromptTokensDetails.CachedTokens != 0 ||
		u.CompletionTokensDetails == nil || u.CompletionTokensDetails.ReasoningTokens != wantReasoning ||
		u.TotalTokens != u.PromptTokens+u.CompletionTokens || u.CompletionTokens <= wantReasoning {
		t.Errorf("usage %+v (reasoning %+v)", *u, u.CompletionTokensDetails)
	}
}

func TestPrefixCacheAccounting(t *testing.T) {
	t.Parallel()
	srv := fakedeepseek.New(t)
	srv.Repeat(fakedeepseek.Scripted(fakedeepseek.Turn{Text: "ok"}))
	system := strings.Repeat("s", 3000)
	bodies := []string{
		`{"model":"m","messages":[{"role":"system","content":"` + system + `"},{"role":"user","content":"one"}]}`,
		`{"model":"m","messages":[{"role":"system","content":"` + system + `"},{"role":"user","content":"two"}]}`,
		`{"model":"m","messages":[{"role":"system","content":"x"}]}`,
		`{"model":"m","tools":[{"type":"function"}],"messages":[{"role":"system","content":"` + system + `"}]}`,
	}
	// Hand-computed from the documented rule: the messages JSON shares
	// len(`[{"role":"system","content":"`)+3000+len(`"},{"role":"user","content":"`) = 3058
	// bytes with request 1 → 764 tokens → 11 whole units of 64 = 704.
	wantHit := []int64{0, 704, 0, 0}
	for i, b := range bodies {
		_, got, _ := post(t, srv.URL+"/chat/completions", b, nil)
		data := events(t, got)
		var c chunk
		if err := json.Unmarshal([]byte(data[len(data)-2]), &c); err != nil || c.Usage == nil {
			t.Fatalf("request %d: %v %s", i, err, got)
		}
		if c.Usage.PromptCacheHitTokens != wantHit[i] || c.Usage.PromptCacheHitTokens+c.Usage.PromptCacheMissTokens != c.Usage.PromptTokens ||
			c.Usage.PromptTokensDetails.CachedTokens != wantHit[i] {
			t.Errorf("request %d usage %+v, want hit %d", i, *c.Usage, wantHit[i])
		}
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	three := fakedeepseek.Chunks(`{"n":1}`, `{"n":2}`, `{"n":3}`)
	full := "data: {\"n\":1}\n\ndata: {\"n\":2}\n\ndata: {\"n\":3}\n\ndata: [DONE]\n\n"

	t.Run("truncate", func(t *testing.T) {
		t.Parallel()
		srv := fakedeepseek.New(t, three.TruncateAfter(20))
		_, got, err := post(t, srv.URL+"/chat/completions", simpleBody, nil)
		if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) || string(got) != full[:20] {
			t.Errorf("got %q, %v; want the first 20 bytes and an unexpected EOF", got, err)
		}
	})
	t.Run("error after", func(t *testing.T) {
		t.Parallel()
		srv := fakedeepseek.New(t, three.ErrorAfter(2, "boom", "server_error", "x"))
		_, got, _ := post(t, srv.URL+"/chat/completions", simpleBody, nil)
		want := full[:strings.Index(full, "data: {\"n\":3}")] + `data: {"error":{"code":"x","message":"boom","param":null,"type":"server_error"}}` + "\n\n"
		if string(got) != want {
			t.Errorf("got %q\nwant %q", got, want)
		}
	})
	t.Run("malformed after", func(t *testing.T) {
		t.Parallel()
		srv := fakedeepseek.New(t, three.MalformedAfter(1))
		_, got, _ := post(t, srv.URL+"/chat/completions", simpleBody, nil)
		data := events(t, got)
		if len(data) != 5 || json.Valid([]byte(data[1])) || data[2] != `{"n":2}` || data[4] != "[DONE]" {
			t.Errorf("events %q", data)
		}
	})
	t.Run("without done", func(t *testing.T) {
		t.Parallel()
		srv := fakedeepseek.New(t, three.WithoutDone())
		if _, got, _ := post(t, srv.URL+"/chat/completions", simpleBody, nil); string(got) != strings.TrimSuffix(full, "data: [DONE]\n\n") {
			t.Errorf("got %q", got)
		}
	})
	t.Run("drip", func(t *testing.T) {
		t.Parallel()
		srv := fakedeepseek.New(t, three.Drip(30*time.Millisecond))
		start := time.Now()
		if _, got, _ := post(t, srv.URL+"/chat/completions", simpleBody, nil); string(got) != full {
			t.Errorf("got %q", got)
		}
		if d := time.Since(start); d < 4*30*time.Millisecond {
			t.Errorf("took %v, want at least 4 delays", d)
		}
	})
	t.Run("stall after", func(t *testing.T) {
		t.Parallel()
		srv := fakedeepseek.New(t, three.StallAfter(1, 10*time.Millisecond))
		want := "data: {\"n\":1}\n\n: keep-alive\n\n: keep-alive\n\n"
		if got := readUntilCanceled(t, srv.URL, len(want)); got != want {
			t.Errorf("got %q", got)
		}
	})
	t.Run("keep-alive stall", func(t *testing.T) {
		t.Parallel()
		srv := fakedeepseek.New(t, fakedeepseek.KeepAliveStall(10*time.Millisecond))
		if got := readUntilCanceled(t, srv.URL, len(": keep-alive\n\n")*3); got != strings.Repeat(": keep-alive\n\n", 3) {
			t.Errorf("got %q", got)
		}
	})
	t.Run("status with retry-after", func(t *testing.T) {
		t.Parallel()
		srv := fakedeepseek.New(t, fakedeepseek.StatusError(429).WithRetryAfter("3"))
		resp, got, _ := post(t, srv.URL+"/chat/completions", simpleBody, nil)
		var e struct {
			Error struct {
				Message, Type string
				Param         any
				Code          string
			}
		}
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || json.Unmarshal(got, &e) != nil ||
			e.Error.Message != "Rate Limit Reached" || e.Error.Type == "" {
			t.Errorf("%d %v %s", resp.StatusCode, resp.Header, got)
		}
	})
}

// readUntilCanceled reads n bytes of a stream that never ends, then goes
// away; the handler must notice, or the fake's Close at cleanup would hang.
func readUntilCanceled(t *testing.T, url string, n int) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(simpleBody))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, n)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	return string(buf)
}

// TestReadSessionScript: the script calls the read tool the request
// offers, with that tool's path argument, until turns-1 results came
// back, then answers; a request offering no read tool gets an answer.
// Start serves it outside a test's lifetime; every request records when
// it arrived and when its answer ended.
func TestReadSessionScript(t *testing.T) {
	t.Parallel()
	srv, err := fakedeepseek.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.Script(fakedeepseek.ReadSession(3, "notes-%d.md"))
	tools := func(name string) string {
		return `[{"type":"function","function":{"name":"` + name + `","parameters":{}}}]`
	}
	tool := `{"role":"tool","tool_call_id":"x","content":"..."}`
	for _, tt := range []struct {
		name, tools, messages string
		wantTool, wantArgs    string // "" = an answer
	}{
		{"harness, turn 1", tools("read_file"), `[{"role":"user","content":"go"}]`, "read_file", `{"path":"notes-1.md"}`},
		{"crush, turn 2", tools("view"), `[{"role":"user","content":"go"},` + tool + `]`, "view", `{"file_path":"notes-2.md"}`},
		{"the last turn", tools("read_file"), `[{"role":"user","content":"go"},` + tool + `,` + tool + `]`, "", ""},
		{"no read tool (a title)", tools("bash"), `[{"role":"user","content":"go"}]`, "", ""},
	} {
		body := `{"model":"m","stream":true,"tools":` + tt.tools + `,"messages":` + tt.messages + `}`
		_, raw, err := post(t, srv.URL+"/chat/completions", body, nil)
		if err != nil {
			t.Fatal(err)
		}
		var name, args, text string
		for _, d := range events(t, raw) {
			var c chunk
			if d == "[DONE]" || json.Unmarshal([]byte(d), &c) != nil || len(c.Choices) == 0 {
				continue
			}
			if c.Choices[0].Delta.Content != nil {
				text += *c.Choices[0].Delta.Content
			}
			for _, tc := range c.Choices[0].Delta.ToolCalls {
				name += tc.Function.Name
				args += tc.Function.Arguments
			}
		}
		var got, want any
		if tt.wantArgs != "" {
			_ = json.Unmarshal([]byte(args), &got)
			_ = json.Unmarshal([]byte(tt.wantArgs), &want)
		}
		if name != tt.wantTool || fmt.Sprint(got) != fmt.Sprint(want) || text == "" {
			t.Errorf("%s: call %q %s, text %q; want call %q %s", tt.name, name, args, text, tt.wantTool, tt.wantArgs)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests recorded, want 4", len(reqs))
	}
	for i, r := range reqs {
		if r.Received.IsZero() || r.Answered.Before(r.Received) {
			t.Errorf("request %d: received %v, answered %v", i, r.Received, r.Answered)
		}
		if i > 0 && r.Received.Before(reqs[i-1].Answered) {
			t.Errorf("request %d arrived before the answer to %d ended", i, i-1)
		}
	}
	if fakedeepseek.ToolResults(reqs[2]) != 2 {
		t.Errorf("ToolResults of the last turn = %d, want 2", fakedeepseek.ToolResults(reqs[2]))
	}
}

// TestScriptAnswersEachRequest: the script decides from the request it
// answers, also when another arrives meanwhile (Crush asks for a title
// beside its first turn).
func TestScriptAnswersEachRequest(t *testing.T) {
	t.Parallel()
	srv := fakedeepseek.New(t)
	srv.Script(fakedeepseek.ReadSession(2, "notes.md"))
	turn := `{"model":"m","stream":true,"tools":[{"type":"function","function":{"name":"read_file","parameters":{}}}],"messages":[{"role":"user","content":"go"}]}`
	title := `{"model":"m","stream":true,"messages":[{"role":"user","content":"a title"}]}`
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, raw, err := post(t, srv.URL+"/chat/completions", title, nil)
			if err == nil && strings.Contains(string(raw), "read_file") {
				t.Error("the title request got the turn's tool call")
			}
		}()
		go func() {
			defer wg.Done()
			_, raw, err := post(t, srv.URL+"/chat/completions", turn, nil)
			if err == nil && !strings.Contains(string(raw), "read_file") {
				t.Error("the turn got an answer meant for the title request")
			}
		}()
	}
	wg.Wait()
}
