package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/session"
)

// renderer shows a run to people (text, coloured on a terminal) and, with
// --json, prints every event as a JSON Line on stdout. It receives events
// after they are committed, one at a time, in order.
type renderer struct {
	mu      sync.Mutex
	human   io.Writer // people: stdout, or stderr with --json
	jsonOut io.Writer // --json: stdout
	asJSON  bool
	color   bool

	inText      bool // the cursor is after streamed text (no newline yet)
	inReasoning bool
	promptTok   int64
	cacheHit    int64
	cacheWrite  int64
	shownError  bool // an error event was rendered

	spin *spinner // on a terminal, while waiting for a model's first token
}

func newRenderer(human, jsonOut io.Writer, asJSON, color bool) *renderer {
	return &renderer{human: human, jsonOut: jsonOut, asJSON: asJSON, color: color}
}

const (
	ansiReset = "\x1b[0m"
	ansiDim   = "\x1b[2m"
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
	ansiYel   = "\x1b[33m"
)

func (r *renderer) style(code, s string) string {
	if !r.color || s == "" {
		return s
	}
	return code + s + ansiReset
}

func (r *renderer) event(ev session.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asJSON {
		line, err := json.Marshal(ev)
		if err == nil {
			fmt.Fprintf(r.jsonOut, "%s\n", line)
		}
	}
	var d map[string]any
	_ = json.Unmarshal(ev.Data, &d)
	if ev.Type == "llm.usage" {
		r.promptTok += num(d["prompt_tokens"])
		r.cacheHit += num(d["cache_hit_tokens"])
		r.cacheWrite += num(d["cache_write_tokens"])
	}
	if r.asJSON {
		return // people see the closing line only
	}
	r.stopSpinner()
	r.human.Write([]byte(r.render(ev.Type, d)))
	if ev.Type == "llm.request" && r.color {
		r.spin = startSpinner(r.human)
	}
}

func (r *renderer) stopSpinner() {
	if r.spin != nil {
		r.spin.stop()
		r.spin = nil
	}
}

// render returns the text of one event for people.
func (r *renderer) render(typ string, d map[string]any) string {
	var b strings.Builder
	switch typ {
	case "assistant.chunk":
		delta := str(d["delta"])
		switch str(d["kind"]) {
		case "text":
			if r.inReasoning {
				b.WriteString("\n")
				r.inReasoning = false
			}
			b.WriteString(delta)
			r.inText = true
		case "reasoning":
			if !r.inReasoning {
				r.newline(&b)
				r.inReasoning = true
			}
			b.WriteString(r.style(ansiDim, delta))
		}
		return b.String()
	case "llm.retry":
		r.newline(&b)
		fmt.Fprintf(&b, "%s\n", r.style(ansiYel, fmt.Sprintf("↻ attempt %d failed (%s); retrying in %dms — its partial output above is void", int(num(d["attempt"])), str(d["kind"]), num(d["delay_ms"]))))
	case "tool.call":
		r.newline(&b)
		fmt.Fprintf(&b, "%s %s\n", r.style(ansiCyan, "●"), r.style(ansiBold, str(d["tool"])+" "+argsSummary(d["arguments"])))
	case "action.proposed":
		fmt.Fprintf(&b, "  %s %s\n", r.style(ansiYel, "?"), str(d["summary"]))
	case "action.decided":
		mark, code := "✓", ansiGreen
		if str(d["decision"]) != "approved" {
			mark, code = "✗", ansiRed
		}
		rule := str(d["rule"])
		if rule != "" {
			rule = ": " + rule
		}
		fmt.Fprintf(&b, "  %s\n", r.style(code, fmt.Sprintf("%s %s by %s%s", mark, str(d["decision"]), str(d["by"]), rule)))
	case "tool.result":
		b.WriteString(r.card(d))
	case "context.compacted":
		r.newline(&b)
		fmt.Fprintf(&b, "%s\n", r.style(ansiDim, fmt.Sprintf("↺ context compacted: %d → %d tokens, %d messages summarized (%s)", num(d["tokens_before"]), num(d["tokens_after"]), num(d["dropped_messages"]), str(d["summarizer"]))))
	case "toolloop.limit_reached":
		r.newline(&b)
		fmt.Fprintf(&b, "%s\n", r.style(ansiYel, "■ limit reached: "+str(d["limit"])))
	case "error":
		r.shownError = true
		r.newline(&b)
		fmt.Fprintf(&b, "%s\n", r.style(ansiRed, fmt.Sprintf("✗ %s: %s", str(d["kind"]), str(d["message"]))))
	case "agent.response":
		r.newline(&b)
		if refused, _ := d["refusal"].(bool); refused {
			fmt.Fprintf(&b, "%s\n", r.style(ansiYel, "⊘ the model refused to answer (finish reason refusal)"))
		}
	default:
		if strings.HasPrefix(typ, "artifact.") {
			r.newline(&b)
			fmt.Fprintf(&b, "%s %s\n", r.style(ansiCyan, "◆ "+strings.TrimPrefix(typ, "artifact.")+":"), str(d["title"]))
		}
	}
	return b.String()
}

func (r *renderer) newline(b *strings.Builder) {
	if r.inText || r.inReasoning {
		b.WriteString("\n")
		r.inText, r.inReasoning = false, false
	}
}

// card renders a tool result from its presentation view.
func (r *renderer) card(d map[string]any) string {
	var b strings.Builder
	if e, ok := d["error"].(map[string]any); ok {
		fmt.Fprintf(&b, "  %s\n", r.style(ansiRed, fmt.Sprintf("✗ %s: %s", str(e["kind"]), firstLine(str(e["message"])))))
		return b.String()
	}
	p, _ := d["presentation"].(map[string]any)
	switch str(p["kind"]) {
	case "diff":
		r.diff(&b, str(p["unified"]))
	case "terminal":
		fmt.Fprintf(&b, "  │ $ %s\n", str(p["command"]))
		for _, line := range tail(strings.Split(strings.TrimRight(str(p["output"]), "\n"), "\n"), 12) {
			fmt.Fprintf(&b, "  │ %s\n", r.style(ansiDim, line))
		}
		code := num(p["exit_code"])
		status := r.style(ansiGreen, "exit 0")
		if code != 0 {
			status = r.style(ansiRed, fmt.Sprintf("exit %d", code))
		}
		fmt.Fprintf(&b, "  └ %s\n", status)
	case "search":
		hits, _ := p["hits"].([]any)
		fmt.Fprintf(&b, "  │ %d matching lines for %q\n", num(p["total"]), str(p["query"]))
		for i, h := range hits {
			if i == 8 {
				fmt.Fprintf(&b, "  │ %s\n", r.style(ansiDim, fmt.Sprintf("… %d more shown to the model", len(hits)-i)))
				break
			}
			hm, _ := h.(map[string]any)
			fmt.Fprintf(&b, "  │ %s:%d: %s\n", r.style(ansiCyan, str(hm["path"])), num(hm["line"]), strings.TrimSpace(str(hm["text"])))
		}
		if hidden := num(p["total"]) - int64(len(hits)); hidden > 0 {
			fmt.Fprintf(&b, "  │ %s\n", r.style(ansiDim, fmt.Sprintf("… %d not shown to the model either", hidden)))
		}
	case "file":
		fmt.Fprintf(&b, "  │ %s lines %d–%d\n", str(p["path"]), num(p["start_line"]), num(p["end_line"]))
	case "text":
		for _, line := range tail(strings.Split(strings.TrimRight(str(p["text"]), "\n"), "\n"), 6) {
			fmt.Fprintf(&b, "  │ %s\n", line)
		}
	default:
		if c := firstLine(str(d["content"])); c != "" {
			fmt.Fprintf(&b, "  │ %s\n", c)
		}
	}
	return b.String()
}

// diff writes a unified diff as card lines, coloured.
func (r *renderer) diff(b *strings.Builder, unified string) {
	for _, line := range strings.Split(strings.TrimRight(unified, "\n"), "\n") {
		code := ""
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			code = ansiBold
		case strings.HasPrefix(line, "+"):
			code = ansiGreen
		case strings.HasPrefix(line, "-"):
			code = ansiRed
		case strings.HasPrefix(line, "@@"):
			code = ansiCyan
		}
		fmt.Fprintf(b, "  │ %s\n", r.style(code, line))
	}
}

// finishTurn ends streamed text with a newline.
func (r *renderer) finishTurn(agent.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopSpinner()
	var b strings.Builder
	r.newline(&b)
	r.human.Write([]byte(b.String()))
}

// closing prints the line that ends a run: status, turns, tokens, cache
// hits and cost.
func (r *renderer) closing(sessionID string, out agent.Outcome, t agent.Totals) {
	r.mu.Lock()
	defer r.mu.Unlock()
	status := out.Status
	switch {
	case out.Status == agent.StatusLimit:
		status = "stopped: " + out.Limit
	case out.Err != nil && out.Status == agent.StatusError:
		status = fmt.Sprintf("failed: %s", out.Err.Kind)
	case out.Status == agent.StatusPending:
		status = fmt.Sprintf("%d actions pending approval (harness actions list)", t.Pending)
	case out.Status == session.StatusAbandoned:
		status = "abandoned: the run that held it is gone (run --resume continues it)"
	}
	if out.Err != nil && out.Status == agent.StatusError && !r.shownError {
		// The error event never reached this view (--json, or the store
		// failed): say what ended the run.
		fmt.Fprintln(r.human, r.style(ansiRed, fmt.Sprintf("✗ %s: %s", out.Err.Kind, out.Err.Message)))
	}
	hits := "0%"
	if r.promptTok > 0 {
		hits = fmt.Sprintf("%.0f%%", 100*float64(r.cacheHit)/float64(r.promptTok))
	}
	cache := hits + " cache hits"
	if r.cacheWrite > 0 && r.promptTok > 0 { // providers that bill cache writes (Anthropic)
		cache += fmt.Sprintf(", %.0f%% cache writes", 100*float64(r.cacheWrite)/float64(r.promptTok))
	}
	line := fmt.Sprintf("— %s · %d turns · %s tokens (%s) · $%.4f · session %s",
		status, t.Turns, thousands(t.Tokens), cache, t.CostUSD, sessionID)
	fmt.Fprintln(r.human, r.style(ansiDim, line))
}

// prompt asks for a line of input: the task or the next message.
func (r *renderer) prompt(in *bufio.Reader, what string) (string, error) {
	r.mu.Lock()
	fmt.Fprint(r.human, r.style(ansiBold, what+" › "))
	r.mu.Unlock()
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(r.human) // end of input (Ctrl-D): leave the prompt's line
		return "", err
	}
	return strings.TrimSpace(line), nil
}

func argsSummary(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		var val string
		switch v := m[k].(type) {
		case string:
			val = v
			if k == "content" || len(v) > 60 {
				val = fmt.Sprintf("(%d bytes)", len(v))
			}
		default:
			b, _ := json.Marshal(v)
			val = string(b)
			if len(val) > 60 {
				val = val[:57] + "…"
			}
		}
		parts = append(parts, k+"="+strings.ReplaceAll(val, "\n", "⏎"))
	}
	return strings.Join(parts, " ")
}

func tail(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return append([]string{fmt.Sprintf("… %d lines above", len(lines)-n)}, lines[len(lines)-n:]...)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
