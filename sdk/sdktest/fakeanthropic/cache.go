package fakeanthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Token estimates and the API's caching limits.
const (
	bytesPerToken = 4
	// maxBreakpoints is how many cache_control blocks a request may carry.
	maxBreakpoints = 4
	// lookback is how many blocks before a breakpoint the API checks for
	// an earlier cache entry.
	lookback = 20
	// DefaultMinCacheTokens is the shortest prefix the fake caches
	// (Anthropic's minimum for Sonnet and Opus models).
	DefaultMinCacheTokens = 1024
)

func estimateTokens(n int) int64 { return int64((n + bytesPerToken - 1) / bytesPerToken) }

// prompt is a request cut into blocks in the API's prefix order, each
// block's JSON without its cache_control.
type prompt struct {
	blocks      [][]byte
	breakpoints []int // indexes of the blocks that carried cache_control
}

// ends returns the byte length of the prompt up to and including block i.
func (p prompt) end(i int) int {
	n := 0
	for _, b := range p.blocks[:i+1] {
		n += len(b)
	}
	return n
}

func (p prompt) bytes() []byte { return bytes.Join(p.blocks, nil) }

func (p prompt) tokens() int64 { return max(1, estimateTokens(len(p.bytes()))) }

type wireRequest struct {
	Model    string            `json:"model"`
	System   json.RawMessage   `json:"system"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// parsePrompt cuts a request body into its blocks.
func parsePrompt(req *wireRequest) (prompt, error) {
	var p prompt
	add := func(raw json.RawMessage) error {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return fmt.Errorf("a content block is not an object: %s", raw)
		}
		if _, ok := obj["cache_control"]; ok {
			p.breakpoints = append(p.breakpoints, len(p.blocks))
			delete(obj, "cache_control")
		}
		b, _ := json.Marshal(obj) // keys sorted: a canonical form
		p.blocks = append(p.blocks, b)
		return nil
	}
	for _, t := range req.Tools {
		if err := add(t); err != nil {
			return p, err
		}
	}
	if err := eachBlock(req.System, add); err != nil {
		return p, fmt.Errorf("system: %w", err)
	}
	for i, m := range req.Messages {
		role, _ := json.Marshal(map[string]string{"role": m.Role})
		p.blocks = append(p.blocks, role)
		if err := eachBlock(m.Content, add); err != nil {
			return p, fmt.Errorf("messages.%d.content: %w", i, err)
		}
	}
	return p, nil
}

// eachBlock calls fn for every block of a content value: a string (one
// text block) or an array of blocks.
func eachBlock(raw json.RawMessage, fn func(json.RawMessage) error) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
		return fn(b)
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return fmt.Errorf("content is neither a string nor a list of blocks")
	}
	for _, b := range blocks {
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// account computes the usage of a prompt against the cache and writes its
// breakpoint prefixes. Callers hold s.mu.
func (s *Server) account(p prompt) Usage {
	total := p.bytes()
	read := 0
	for _, bp := range p.breakpoints {
		for i := bp; i >= 0 && i >= bp-lookback; i-- {
			n := p.end(i)
			if n > read && s.cached[string(total[:n])] {
				read = n
				break
			}
		}
	}
	write := 0
	for _, bp := range p.breakpoints {
		n := p.end(bp)
		if estimateTokens(n) < s.minCache {
			continue
		}
		s.cached[string(total[:n])] = true
		write = max(write, n)
	}
	readTok := estimateTokens(read)
	writeTok := max(0, estimateTokens(write)-readTok)
	all := p.tokens()
	return Usage{CacheReadInputTokens: readTok, CacheCreationInputTokens: writeTok, InputTokens: max(0, all-readTok-writeTok)}
}
