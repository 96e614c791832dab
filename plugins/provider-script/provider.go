package script

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/harness-agent/harness/sdk"
	"github.com/harness-agent/harness/sdk/schema"
)

// ModelID is the one model the provider offers.
const ModelID = "script"

// Config is the provider block's settings as the host decodes them against
// SettingsSchema.
type Config struct {
	Script    string `json:"script"`     // absolute path of the script file
	ChunkSize int    `json:"chunk_size"` // bytes per delta; default 12
	DelayMS   int    `json:"delay_ms"`   // pause between chunks; default 0
}

const defaultChunkSize = 12

// Provider streams scripted model turns. Configure loads the script;
// Configure again reloads it and forgets every turn's failure count and the
// prefix-cache estimate.
type Provider struct {
	mu       sync.Mutex
	cfg      Config
	turns    []*turn
	failures map[*turn]int // failures already played per turn
	previous string        // the last request's prompt, for the prefix-cache estimate
}

// New returns an unconfigured provider.
func New() *Provider { return &Provider{} }

// Configure implements sdk.Provider.
func (p *Provider) Configure(_ context.Context, raw json.RawMessage) error {
	var cfg Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return sdk.Errorf(sdk.KindInvalidRequest, "provider-script: configuration is not valid JSON: %v", err)
	}
	switch {
	case cfg.Script == "":
		return sdk.Errorf(sdk.KindInvalidRequest, "provider-script: no script: set script to the path of a script file")
	case !filepath.IsAbs(cfg.Script):
		return sdk.Errorf(sdk.KindInvalidRequest, "provider-script: script path %q is not absolute (the host resolves a path setting against the configuration file)", cfg.Script)
	case cfg.ChunkSize < 0 || cfg.DelayMS < 0:
		return sdk.Errorf(sdk.KindInvalidRequest, "provider-script: chunk_size (%d) and delay_ms (%d) must not be negative", cfg.ChunkSize, cfg.DelayMS)
	}
	if cfg.ChunkSize == 0 {
		cfg.ChunkSize = defaultChunkSize
	}
	turns, err := loadScript(cfg.Script)
	if err != nil {
		return sdk.Errorf(sdk.KindInvalidRequest, "provider-script: %v", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cfg, p.turns, p.failures, p.previous = cfg, turns, map[*turn]int{}, ""
	return nil
}

// Models implements sdk.Provider.
func (p *Provider) Models(context.Context) ([]sdk.ModelInfo, error) {
	return []sdk.ModelInfo{{
		ID: ModelID, ContextWindow: 128000, MaxOutput: 8192, Pricing: &sdk.Pricing{},
		SupportsTools: true, SupportsReasoning: true, SupportsCaching: true,
	}}, nil
}

// KeepDeltas implements sdk.DeltaKeeper: a script's chunk_size-byte
// deltas reach the host one by one, as the script streams them.
func (p *Provider) KeepDeltas() bool { return true }

// Stream implements sdk.Provider: it picks the turn for the request and
// streams it like a model would.
func (p *Provider) Stream(ctx context.Context, req sdk.StreamRequest, emit func(sdk.StreamChunk) error) error {
	p.mu.Lock()
	if p.cfg.Script == "" {
		p.mu.Unlock()
		return sdk.Errorf(sdk.KindInvalidRequest, "provider-script: not configured")
	}
	cfg := p.cfg
	position := assistantCount(req.Messages)
	t := pick(p.turns, req.Messages, position)
	var fail *failure
	if t.fail != nil && p.failures[t] < t.fail.times {
		p.failures[t]++
		fail = t.fail
	}
	prompt := promptText(req)
	hit := commonPrefix(p.previous, prompt)
	p.previous = prompt
	p.mu.Unlock()

	chunks := render(t, req.Thinking, position, cfg.ChunkSize, estimate(t, req.Thinking, len(prompt), hit))
	if fail != nil {
		chunks = chunks[:min(fail.afterChunks, len(chunks))]
	}
	delay := time.Duration(cfg.DelayMS) * time.Millisecond
	for i, c := range chunks {
		if i > 0 && delay > 0 {
			if err := sleep(ctx, delay); err != nil {
				return err
			}
		}
		if err := emit(c); err != nil {
			return err
		}
	}
	if fail != nil {
		return &sdk.Error{Kind: fail.kind, Message: fail.message, RetryAfter: fail.retryAfter}
	}
	return nil
}

// assistantCount is the number of assistant messages already in a
// conversation: the position of the turn that answers it, also when the
// conversation is resumed by a fresh provider process.
func assistantCount(msgs []sdk.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == sdk.RoleAssistant {
			n++
		}
	}
	return n
}

// endTurn answers when the script has no turn left for a request.
var endTurn = &turn{text: "(script ended)"}

// pick chooses the turn for a request: the first turn with a match that
// matches the last user or tool message, else the sequence turn at position
// (sequence turns are those without match, in file order).
func pick(turns []*turn, msgs []sdk.Message, position int) *turn {
	last, ok := lastInput(msgs)
	var sequence []*turn
	for _, t := range turns {
		switch {
		case t.match == nil:
			sequence = append(sequence, t)
		case ok && t.match.MatchString(last):
			return t
		}
	}
	if position < len(sequence) {
		return sequence[position]
	}
	return endTurn
}

func lastInput(msgs []sdk.Message) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if r := msgs[i].Role; r == sdk.RoleUser || r == sdk.RoleTool {
			return msgs[i].Content, true
		}
	}
	return "", false
}

// promptText is the request as the prefix cache sees it: tools first, then
// the messages in order, as a provider serializes them.
func promptText(req sdk.StreamRequest) string {
	var b strings.Builder
	for _, t := range req.Tools {
		fmt.Fprintf(&b, "tool %s\n%s\n%s\n", t.Name, t.Description, t.Parameters)
	}
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "<%s>%s", m.Role, m.Content)
		if m.Reasoning != "" && req.ReplayReasoning {
			fmt.Fprintf(&b, "<reasoning>%s", m.Reasoning)
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "<call %s %s>%s", c.ID, c.Name, c.Arguments)
		}
		if m.ToolCallID != "" {
			fmt.Fprintf(&b, "<result %s>", m.ToolCallID)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// SettingsSchema implements sdk.ProviderDescriber: the attributes of the
// provider block besides "plugin". script is a path (schema.FormatPath):
// the host resolves it against the directory of the file that declares it,
// checks that it is a readable file and sends the absolute path.
func (p *Provider) SettingsSchema(context.Context) (json.RawMessage, error) {
	return schema.Object(
		schema.String("script", "the script file; a relative path starts at the directory of the declaring file").Path().Required(),
		schema.Integer("chunk_size", "bytes per streamed delta (default 12)").Min(1),
		schema.Integer("delay_ms", "pause between chunks, in milliseconds (default 0)").Min(0),
	).JSON(), nil
}

var (
	_ sdk.Provider          = (*Provider)(nil)
	_ sdk.ProviderDescriber = (*Provider)(nil)
)
