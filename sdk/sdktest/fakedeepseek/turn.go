package fakedeepseek

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/harness-agent/harness/sdk/sdktest/internal/ssefake"
)

// Turn is a scripted model answer: reasoning, then text, then tool calls,
// streamed the way DeepSeek streams them.
type Turn struct {
	Reasoning string
	Text      string
	ToolCalls []ToolCall
	// Finish is the finish_reason; default "tool_calls" when there are tool
	// calls, else "stop".
	Finish string
	// Usage replaces the estimated usage when set.
	Usage *Usage
	// Fragment is how many characters each delta carries; default 4.
	Fragment int
}

// ToolCall is one scripted tool call. An empty ID gets a DeepSeek-style one
// ("call_00_…").
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Usage is the usage a scripted turn reports.
type Usage struct {
	PromptTokens     int64
	CompletionTokens int64
	CacheHitTokens   int64
	CacheMissTokens  int64
	ReasoningTokens  int64
}

// Token estimates: about 4 bytes per token, cache hits in whole 64-token
// units of a common prefix.
const (
	bytesPerToken = 4
	cacheUnit     = 64
)

func estimateTokens(n int) int64 {
	return int64((n + bytesPerToken - 1) / bytesPerToken)
}

func promptTokens(prompt []byte) int64 { return max(1, estimateTokens(len(prompt))) }

// cacheHit returns the cached tokens of prompt: the longest common prefix
// with any earlier request, in whole units of 64 estimated tokens. Callers
// hold s.mu.
func (s *Server) cacheHit(prompt []byte) int64 {
	best := 0
	for _, p := range s.prompts {
		n := 0
		for n < len(p) && n < len(prompt) && p[n] == prompt[n] {
			n++
		}
		best = max(best, n)
	}
	hit := int64(best/bytesPerToken) / cacheUnit * cacheUnit
	return min(hit, promptTokens(prompt))
}

// wire shapes of a DeepSeek chunk, fields in DeepSeek's order.
type wireChunk struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	SystemFingerprint string       `json:"system_fingerprint"`
	Choices           []wireChoice `json:"choices"`
	Usage             *wireUsage   `json:"usage"`
}

type wireChoice struct {
	Index        int             `json:"index"`
	Delta        json.RawMessage `json:"delta"`
	Logprobs     *struct{}       `json:"logprobs"`
	FinishReason *string         `json:"finish_reason"`
}

type wireUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	TotalTokens         int64 `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details,omitempty"`
	PromptCacheHitTokens  int64 `json:"prompt_cache_hit_tokens"`
	PromptCacheMissTokens int64 `json:"prompt_cache_miss_tokens"`
}

type textDelta struct {
	Role             string  `json:"role,omitempty"`
	Content          *string `json:"content"`
	ReasoningContent *string `json:"reasoning_content,omitempty"`
}

type toolDelta struct {
	ToolCalls []toolCallDelta `json:"tool_calls"`
}

type toolCallDelta struct {
	Index    int          `json:"index"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function functionPart `json:"function"`
}

type functionPart struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// frames builds the SSE events of the turn for request number seq.
func (t *Turn) frames(seq int, model string, prompt, hit int64) [][]byte {
	b := &turnBuilder{id: fmt.Sprintf("fake-%04d", seq), model: model, created: time.Now().Unix(), thinking: t.Reasoning != ""}
	size := t.Fragment
	if size <= 0 {
		size = 4
	}
	empty, null := "", (*string)(nil)
	if b.thinking {
		b.add(textDelta{Role: "assistant", Content: null, ReasoningContent: &empty}, nil, nil)
		for _, part := range ssefake.Fragments(t.Reasoning, size) {
			b.add(textDelta{Content: null, ReasoningContent: &part}, nil, nil)
		}
	} else {
		b.add(textDelta{Role: "assistant", Content: &empty}, nil, nil)
	}
	for _, part := range ssefake.Fragments(t.Text, size) {
		b.add(b.content(&part), nil, nil)
	}
	completionBytes := len(t.Reasoning) + len(t.Text)
	for i, tc := range t.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%02d_fake%04d", i, seq)
		}
		b.add(toolDelta{ToolCalls: []toolCallDelta{{Index: i, ID: id, Type: "function", Function: functionPart{Name: tc.Name}}}}, nil, nil)
		for _, part := range ssefake.Fragments(tc.Arguments, size) {
			b.add(toolDelta{ToolCalls: []toolCallDelta{{Index: i, Function: functionPart{Arguments: part}}}}, nil, nil)
		}
		completionBytes += len(tc.Name) + len(tc.Arguments)
	}
	finish := t.Finish
	if finish == "" {
		finish = "stop"
		if len(t.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	u := t.Usage
	if u == nil {
		u = &Usage{PromptTokens: prompt, CompletionTokens: max(1, estimateTokens(completionBytes)),
			CacheHitTokens: hit, CacheMissTokens: prompt - hit, ReasoningTokens: estimateTokens(len(t.Reasoning))}
	}
	b.add(b.content(&empty), &finish, u)
	return b.frames
}

type turnBuilder struct {
	id, model string
	created   int64
	thinking  bool
	frames    [][]byte
}

// content is a content delta; in thinking mode DeepSeek sends
// reasoning_content: null beside it.
func (b *turnBuilder) content(s *string) any {
	if b.thinking {
		return struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
		}{Content: s}
	}
	return textDelta{Content: s}
}

func (b *turnBuilder) add(delta any, finish *string, u *Usage) {
	c := wireChunk{ID: b.id, Object: "chat.completion.chunk", Created: b.created, Model: b.model,
		SystemFingerprint: "fp_fakedeepseek", Choices: []wireChoice{{Delta: ssefake.Marshal(delta), FinishReason: finish}}}
	if u != nil {
		w := &wireUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
			TotalTokens: u.PromptTokens + u.CompletionTokens, PromptCacheHitTokens: u.CacheHitTokens,
			PromptCacheMissTokens: u.CacheMissTokens}
		w.PromptTokensDetails.CachedTokens = u.CacheHitTokens
		if u.ReasoningTokens > 0 {
			w.CompletionTokensDetails = &struct {
				ReasoningTokens int64 `json:"reasoning_tokens"`
			}{u.ReasoningTokens}
		}
		c.Usage = w
	}
	b.frames = append(b.frames, append(append([]byte("data: "), ssefake.Marshal(c)...), '\n', '\n'))
}
