package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/sdk"
)

// renderer shows a run to people (text, coloured on a terminal) and, with
// --json, prints every event as a JSON Line on stdout. It receives events
// after they are committed, one at a time, in order, and reads them as
// their core/event types. Every string of an event goes through visible
// (visibleEvent) before it is rendered.
type renderer struct {
	mu      sync.Mutex
	human   io.Writer // people: stdout, or stderr with --json
	jsonOut io.Writer // --json: stdout
	asJSON  bool
	disp    display

	text        wrapper // streamed answer and reasoning
	inText      bool    // the cursor is after streamed text (no newline yet)
	inReasoning bool
	partial     bool // text streamed since the last request (for the retry line)
	// cut: an answer streamed and then nothing explained its end (no
	// assistant.message, retry, interruption or session.ended): the run
	// died in the middle of it.
	cut        bool
	answer     strings.Builder // the answer streamed since the last request
	promptTok  int64
	cacheHit   int64
	cacheWrite int64
	shownError bool // an error event was rendered

	calls      []*callCard // the turn's calls in the model's order, until rendered
	lastHeader string      // call id whose header was printed last
	waitModel  time.Time   // a request is waiting for its first token
	asking     bool        // a person is being asked: no spinner, no redraws

	spin *spinner // on a live terminal, while waiting for a model or a tool
}

// callCard is one tool call of the running turn.
type callCard struct {
	id, header string
	started    time.Time
	result     string
	done       bool
	tool       string
	command    string // terminal: the command, shown above its streamed output
	streamed   bool   // progress was shown: the result card shows the exit only
}

func newRenderer(human, jsonOut io.Writer, asJSON bool, disp display) *renderer {
	r := &renderer{human: human, jsonOut: jsonOut, asJSON: asJSON, disp: disp}
	r.text = wrapper{width: disp.width}
	return r
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

// gutter starts the lines of a card.
const gutter = "  │ "

func (r *renderer) style(code, s string) string {
	if !r.disp.color {
		return s
	}
	return styled(code, s)
}

// absorb counts an earlier event of a resumed session (usage, for the
// closing line's whole-session figures) without showing it.
func (r *renderer) absorb(ev session.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.countUsageEvent(ev)
}

// countUsageEvent counts ev when it is an llm.usage event, the only one the
// closing line needs, decoding nothing else.
func (r *renderer) countUsageEvent(ev session.Event) {
	if ev.Type != event.TypeLLMUsage {
		return
	}
	if u, err := event.As[event.LLMUsage](ev); err == nil {
		r.countUsage(u)
	}
}

func (r *renderer) countUsage(u event.LLMUsage) {
	r.promptTok += u.PromptTokens
	r.cacheHit += u.CacheHitTokens
	r.cacheWrite += u.CacheWriteTokens
}

func (r *renderer) event(ev session.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asJSON {
		line, err := json.Marshal(ev)
		if err == nil {
			fmt.Fprintf(r.jsonOut, "%s\n", line)
		}
		r.countUsageEvent(ev)
		return // people see the closing line only
	}
	d, err := event.Decode(ev)
	if u, ok := d.(event.LLMUsage); ok {
		r.countUsage(u)
	}
	r.stopSpinner()
	if err != nil {
		io.WriteString(r.human, r.undecodable(err))
	} else {
		io.WriteString(r.human, r.render(visibleEvent(d)))
	}
	r.resumeSpinner()
}

// undecodable says an event was not shown: one of a type this harness does
// not know (a newer harness wrote the session) or whose data does not
// decode as its type.
func (r *renderer) undecodable(err error) string {
	var b strings.Builder
	r.newline(&b)
	r.line(&b, ansiDim, visibleLine(fmt.Sprintf("· not shown: %v", err)))
	return b.String()
}

func (r *renderer) stopSpinner() {
	if r.spin != nil {
		r.spin.stop()
		r.spin = nil
	}
}

// resumeSpinner shows what the run waits for, on a live terminal: the
// model's first token, or the oldest running tool.
func (r *renderer) resumeSpinner() {
	if !r.disp.live || r.asJSON || r.asking || r.spin != nil {
		return
	}
	switch {
	case !r.waitModel.IsZero():
		r.spin = startSpinner(r.human, r.disp, "waiting for the model", r.waitModel)
	default:
		for _, c := range r.calls {
			if !c.done {
				r.spin = startSpinner(r.human, r.disp, "running "+c.tool, c.started)
				return
			}
		}
	}
}

// pause stops the spinner and ends streamed text for a question; resume
// lets the spinner come back.
func (r *renderer) pause() {
	r.asking = true
	r.stopSpinner()
	var b strings.Builder
	r.newline(&b)
	io.WriteString(r.human, b.String())
}

func (r *renderer) resume() {
	r.asking = false
	r.resumeSpinner()
}

// render returns the text of one event for people; every string in d is
// already visible.
func (r *renderer) render(d event.Data) string {
	var b strings.Builder
	if _, chunk := d.(event.AssistantChunk); !chunk {
		r.text.flush(&b, r.textStyle())
	}
	switch d := d.(type) {
	case event.SessionStarted:
		if d.Task != "" && r.disp.replay {
			r.newline(&b)
			r.block(&b, "task", taskText(d.Task))
		}
	case event.UserMessage:
		if r.disp.replay {
			r.newline(&b)
			r.block(&b, "message", d.Text)
		}
	case event.SessionResumed:
		if r.disp.replay {
			r.newline(&b)
			if r.cut {
				r.line(&b, ansiYel, "— cut by the crash; resumed")
			}
			r.line(&b, ansiDim, fmt.Sprintf("↺ resumed after %s", countNoun(d.Turns, "turn")))
		}
		r.cut = false
	case event.TurnInterrupted:
		r.cut = false
		if r.disp.replay {
			r.newline(&b)
			r.line(&b, ansiYel, "■ turn interrupted by the user")
		}
	case event.SessionEnded:
		r.cut = false
		if r.disp.replay {
			r.newline(&b)
			r.line(&b, ansiDim, "■ ended: "+d.Status)
		}
	case event.LLMRequest:
		r.flushCalls(&b, true)
		r.waitModel = time.Now()
		r.partial, r.cut = false, false
		r.answer.Reset()
	case event.AssistantChunk:
		r.waitModel = time.Time{}
		switch d.Kind {
		case event.ChunkText:
			if r.inReasoning {
				r.text.flush(&b, r.textStyle())
				r.text.breakLine(&b)
				r.inReasoning = false
			}
			r.inText = true
		case event.ChunkReasoning:
			if !r.inReasoning {
				r.newline(&b)
				r.inReasoning = true
			}
		default:
			return b.String()
		}
		if d.Delta != "" {
			r.partial, r.cut = true, true
		}
		if !r.inReasoning {
			r.answer.WriteString(d.Delta)
		}
		r.text.write(&b, d.Delta, r.textStyle())
	case event.AssistantMessage:
		r.waitModel = time.Time{}
		r.cut = false
	case event.LLMRetry:
		r.waitModel = time.Now()
		r.newline(&b)
		msg := fmt.Sprintf("↻ attempt %d failed (%s); retrying in %dms", d.Attempt, d.Kind, d.DelayMS)
		if r.partial {
			msg += " — its partial output above is void"
		}
		r.partial, r.cut = false, false
		r.line(&b, ansiYel, msg)
	case event.ToolCall:
		r.waitModel = time.Time{}
		r.newline(&b)
		c := &callCard{id: d.CallID, tool: d.Tool, started: time.Now()}
		args := toolArguments(d.Arguments)
		c.command, _ = args["command"].(string)
		parts := wrapLine(visibleLine(d.Tool+" "+argsSummary(args)), max(r.disp.width-2, 0))
		for i, part := range parts {
			mark := r.style(ansiCyan, "●")
			if i > 0 {
				mark = " "
			}
			parts[i] = mark + " " + r.style(ansiBold, part)
		}
		c.header = strings.Join(parts, "\n")
		r.calls = append(r.calls, c)
		r.printHeader(&b, c)
	case event.ToolProgress:
		if c := r.card(d.CallID); c != nil && !c.done {
			r.printHeader(&b, c)
			if !c.streamed && c.command != "" {
				r.gutterLines(&b, "$ "+c.command, "")
			}
			c.streamed = true
			r.gutterLines(&b, strings.TrimRight(d.Text, "\n"), ansiDim)
		}
	case event.ActionProposed:
		if c := r.card(d.CallID); c != nil {
			r.printHeader(&b, c)
		}
		fmt.Fprintf(&b, "  %s %s\n", r.style(ansiYel, "?"), visibleLine(d.Summary))
	case event.ActionDecided:
		mark, code := "✓", ansiGreen
		if d.Decision != session.ActionStatusApproved {
			mark, code = "✗", ansiRed
		}
		rule := d.Rule
		if rule != "" {
			rule = ": " + rule
		}
		fmt.Fprintf(&b, "  %s\n", r.style(code, visibleLine(fmt.Sprintf("%s %s by %s%s", mark, d.Decision, d.By, rule))))
	case event.ToolResult:
		c := r.card(d.CallID)
		if c == nil {
			c = &callCard{id: d.CallID}
			r.calls = append(r.calls, c)
		}
		c.result, c.done = r.resultCard(d, c.streamed), true
		r.flushCalls(&b, false)
	case event.ContextCompacted:
		r.newline(&b)
		r.line(&b, ansiDim, fmt.Sprintf("↺ context compacted: %d → %d tokens, %s summarized (%s)", d.TokensBefore, d.TokensAfter, countNoun(d.DroppedMessages, "message"), d.Summarizer))
	case event.LimitReached:
		r.newline(&b)
		r.line(&b, ansiYel, "■ limit reached: "+d.Limit)
	case event.Error:
		r.waitModel = time.Time{}
		r.shownError = true
		r.newline(&b)
		r.line(&b, ansiRed, fmt.Sprintf("✗ %s: %s", d.Kind, humanText(d.Message)))
	case event.AgentResponse:
		r.flushCalls(&b, true)
		r.newline(&b)
		if d.Refusal {
			fmt.Fprintf(&b, "%s\n", r.style(ansiYel, "⊘ the model refused to answer (finish reason refusal)"))
		}
	case event.Note:
		r.artifact(&b, d, d.Title)
	case event.Decision:
		r.artifact(&b, d, d.Title)
	case event.Checklist:
		r.artifact(&b, d, d.Title)
	}
	return b.String()
}

// artifact shows that the agent recorded an artifact: its type and title.
func (r *renderer) artifact(b *strings.Builder, d event.Data, title string) {
	r.newline(b)
	fmt.Fprintf(b, "%s %s\n", r.style(ansiCyan, "◆ "+strings.TrimPrefix(d.EventType(), event.ArtifactPrefix)+":"), visibleLine(title))
}

// toolArguments are a call's arguments as the tool's own JSON object (no
// type of the harness describes them), every string visible; nil when
// they are not an object.
func toolArguments(raw json.RawMessage) map[string]any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	m, _ := visibleData(v).(map[string]any)
	return m
}

// line writes one line of the run's own text (not in a card), wrapped to
// the terminal's width.
func (r *renderer) line(b *strings.Builder, code, text string) {
	for _, l := range strings.Split(text, "\n") {
		for _, part := range wrapLine(l, r.disp.width) {
			fmt.Fprintf(b, "%s\n", r.style(code, part))
		}
	}
}

func (r *renderer) textStyle() string {
	if r.inReasoning && r.disp.color {
		return ansiDim
	}
	return ""
}

// block shows a person's text (a task, a message) in a quoted block.
func (r *renderer) block(b *strings.Builder, label, text string) {
	fmt.Fprintf(b, "%s\n", r.style(ansiBold, label+" ›"))
	r.gutterLines(b, strings.TrimSpace(text), "")
}

// taskText is the task as the person typed it: the prompt package wraps it
// with context for the model (date, workspace) after a blank line.
func taskText(s string) string {
	if i := strings.Index(s, "\n\n"); i > 0 {
		return s[:i]
	}
	return s
}

func (r *renderer) card(id string) *callCard {
	for _, c := range r.calls {
		if c.id == id {
			return c
		}
	}
	return nil
}

func (r *renderer) printHeader(b *strings.Builder, c *callCard) {
	if r.lastHeader == c.id || c.header == "" {
		return
	}
	r.newline(b)
	fmt.Fprintf(b, "%s\n", c.header)
	r.lastHeader = c.id
}

// flushCalls renders finished results in the model's order, each under its
// own call's header; all of them (the turn is over) when all is set.
func (r *renderer) flushCalls(b *strings.Builder, all bool) {
	for len(r.calls) > 0 && (r.calls[0].done || all) {
		c := r.calls[0]
		r.calls = r.calls[1:]
		if c.done {
			r.printHeader(b, c)
			b.WriteString(c.result)
		}
	}
	if len(r.calls) == 0 {
		r.lastHeader = ""
	}
}

// resultCard renders a tool result from its presentation view; streamed
// says its output was shown as it came (a terminal card then shows the
// exit status only).
func (r *renderer) resultCard(d event.ToolResult, streamed bool) string {
	var b strings.Builder
	if e := d.Error; e != nil {
		msg := visibleLine(fmt.Sprintf("✗ %s: %s", e.Kind, firstLine(humanText(e.Message))))
		for i, part := range wrapLine(msg, max(r.disp.width-4, 0)) {
			indent := "  "
			if i > 0 {
				indent = "    "
			}
			fmt.Fprintf(&b, "%s%s\n", indent, r.style(ansiRed, part))
		}
		return b.String()
	}
	view, _ := d.View() // a view this harness does not know shows the content
	switch p := visibleValue(view).(type) {
	case sdk.DiffView:
		r.diffLines(&b, p.Unified, 0)
	case sdk.TerminalView:
		if !streamed { // else the output is above, as it came
			r.terminalOutput(&b, p.Command, p.Output)
		}
		status := r.style(ansiGreen, "exit 0")
		if p.ExitCode != 0 {
			status = r.style(ansiRed, fmt.Sprintf("exit %d", p.ExitCode))
		}
		fmt.Fprintf(&b, "  └ %s\n", status)
	case sdk.SearchView:
		r.gutterLines(&b, fmt.Sprintf("%s for %q", countNoun(p.Total, "matching line"), p.Query), "")
		for i, h := range p.Hits {
			if i == 8 {
				r.gutterLines(&b, fmt.Sprintf("… %d more shown to the model", len(p.Hits)-i), ansiDim)
				break
			}
			r.gutterLines(&b, fmt.Sprintf("%s:%d: %s", h.Path, h.Line, strings.TrimSpace(h.Text)), "")
		}
		if hidden := p.Total - len(p.Hits); hidden > 0 {
			r.gutterLines(&b, fmt.Sprintf("… %d not shown to the model either", hidden), ansiDim)
		}
	case sdk.FileView:
		r.gutterLines(&b, fmt.Sprintf("%s lines %d–%d", p.Path, p.StartLine, p.EndLine), "")
	case sdk.TextView:
		r.gutterLines(&b, strings.Join(tail(strings.Split(strings.TrimRight(p.Text, "\n"), "\n"), 6), "\n"), "")
	default:
		if c := firstLine(d.Content); c != "" {
			r.gutterLines(&b, c, "")
		}
	}
	return b.String()
}

// omittedMarker is the terminal's line for the output it did not keep,
// compiled on first use: every process of this binary, each plugin's too,
// would compile it at init.
var omittedMarker = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\[… \d+ bytes \(\d+ lines\) omitted …\]$`)
})

// terminalOutput shows a command and the last lines of its output.
func (r *renderer) terminalOutput(b *strings.Builder, command, output string) {
	r.gutterLines(b, "$ "+command, "")
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	if earlier := len(lines) - 12; earlier > 0 {
		note := fmt.Sprintf("… %s before these not shown here", countNoun(earlier, "line"))
		if m := omittedMarker().FindString(strings.Join(lines[:earlier], "\n")); m != "" {
			note += "; the model got them, except " + strings.Trim(m, "[]… ")
		}
		r.gutterLines(b, note, ansiDim)
	}
	r.gutterLines(b, strings.Join(tail(lines, 12), "\n"), ansiDim)
}

// diffLines renders a unified diff in the gutter, coloured; max > 0 shows
// at most max lines and says how many more there are.
func (r *renderer) diffLines(b *strings.Builder, unified string, max int) (more int) {
	lines := strings.Split(strings.TrimRight(unified, "\n"), "\n")
	if max > 0 && len(lines) > max {
		more = len(lines) - max
		lines = lines[:max]
	}
	for _, line := range lines {
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
		r.gutterLines(b, line, code)
	}
	return more
}

// gutterLines writes text in the card's gutter, each line wrapped to the
// terminal's width with the gutter kept on the continuation lines.
func (r *renderer) gutterLines(b *strings.Builder, text, code string) {
	if text == "" {
		return
	}
	width := 0
	if r.disp.width > 0 {
		width = max(r.disp.width-len([]rune(gutter)), 20)
	}
	for _, line := range strings.Split(text, "\n") {
		for _, part := range wrapLine(visibleLine(line), width) {
			fmt.Fprintf(b, "%s%s\n", gutter, r.style(code, part))
		}
	}
}

func (r *renderer) newline(b *strings.Builder) {
	r.text.flush(b, r.textStyle())
	if r.inText || r.inReasoning {
		r.text.breakLine(b)
		r.inText, r.inReasoning = false, false
	}
}

// partialAnswer is the text the model streamed in the current request
// (what a person saw before interrupting it).
func (r *renderer) partialAnswer() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.answer.String()
}

// finishTurn ends streamed text with a newline and shows what is left of
// the turn's cards (a canceled turn leaves calls without results).
func (r *renderer) finishTurn(out agent.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopSpinner()
	r.waitModel = time.Time{}
	var b strings.Builder
	wasText := r.inText
	r.newline(&b)
	r.flushCalls(&b, true)
	if out.Status == agent.StatusInterrupted && !r.asJSON {
		msg := "■ turn interrupted"
		if wasText || r.partial {
			msg += " (the answer above is partial)"
		}
		r.line(&b, ansiYel, msg)
	}
	io.WriteString(r.human, b.String())
}

// closing prints the line that ends a run: status, turns, tokens, cache
// hits and cost, for the whole session.
func (r *renderer) closing(sessionID string, out agent.Outcome, t agent.Totals) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopSpinner()
	status := out.Status
	switch {
	case out.Status == agent.StatusLimit:
		status = "stopped: " + out.Limit
	case out.Err != nil && out.Status == agent.StatusError:
		status = fmt.Sprintf("failed: %s", out.Err.Kind)
	case out.Status == agent.StatusPending:
		status = fmt.Sprintf("%s pending approval (harness actions list)", countNoun(t.Pending, "action"))
	case out.Status == session.StatusAbandoned:
		status = "abandoned: the run that held it is gone (run --resume continues it)"
	}
	if out.Err != nil && out.Status == agent.StatusError && !r.shownError {
		// The error event never reached this view (--json, or the store
		// failed): say what ended the run.
		fmt.Fprintln(r.human, r.style(ansiRed, visible(fmt.Sprintf("✗ %s: %s", out.Err.Kind, humanText(out.Err.Message)))))
	}
	hits := "0%"
	if r.promptTok > 0 {
		hits = fmt.Sprintf("%.0f%%", 100*float64(r.cacheHit)/float64(r.promptTok))
	}
	cache := hits + " cache hits"
	if r.cacheWrite > 0 && r.promptTok > 0 { // providers that bill cache writes (Anthropic)
		cache += fmt.Sprintf(", %.0f%% cache writes", 100*float64(r.cacheWrite)/float64(r.promptTok))
	}
	line := fmt.Sprintf("— %s · %s · %s tokens (%s) · $%.4f · session %s",
		status, countNoun(t.Turns, "turn"), thousands(t.Tokens), cache, t.CostUSD, sessionID)
	for _, part := range wrapLine(visibleLine(line), r.disp.width) {
		fmt.Fprintln(r.human, r.style(ansiDim, part))
	}
}

// banner introduces a resumed session.
func (r *renderer) banner(sessionID string, t agent.Totals) {
	r.mu.Lock()
	defer r.mu.Unlock()
	line := fmt.Sprintf("↺ resuming session %s · %s so far · %s tokens · $%.4f", sessionID, countNoun(t.Turns, "turn"), thousands(t.Tokens), t.CostUSD)
	fmt.Fprintln(r.human, r.style(ansiDim, visibleLine(line)))
}

// prompt asks for a line of input: the task or the next message. An empty
// line asks again; end of input (Ctrl-D) returns io.EOF. Ctrl-C at the
// prompt says how to leave, and a second one in a row returns
// errPromptInterrupted.
func (r *renderer) prompt(ctx context.Context, lines *lineReader, turns *turnSignals, what string, warned bool) (string, error) {
	var interrupt <-chan struct{}
	if turns != nil {
		interrupt = turns.prompt
	}
	for {
		r.mu.Lock()
		r.stopSpinner()
		fmt.Fprint(r.human, r.style(ansiBold, what+" › "))
		r.mu.Unlock()
		line, err := lines.next(ctx, interrupt)
		switch {
		case errors.Is(err, errPromptInterrupted) && !warned:
			warned = true
			fmt.Fprintln(r.human, r.style(ansiDim, "^C (press Ctrl-C again to end the session, or Ctrl-D)"))
			continue
		case err != nil:
			fmt.Fprintln(r.human) // leave the prompt's line
			return "", err
		}
		warned = false
		if s := strings.TrimSpace(line); s != "" {
			return s, nil
		}
	}
}

// humanText drops the advice a tool error carries for the model ("Do not
// retry it as it is: …"): people read what happened only.
func humanText(msg string) string {
	for _, cut := range []string{" Do not retry it as it is", " Continue with other work and do not repeat this call"} {
		if i := strings.Index(msg, cut); i > 0 {
			return msg[:i]
		}
	}
	return msg
}

// argsSummary is a call's arguments on one line: key=value, sorted.
func argsSummary(m map[string]any) string {
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
			if k == "content" || len([]rune(v)) > 60 {
				val = fmt.Sprintf("(%d bytes)", len(v))
			}
		default:
			b, _ := json.Marshal(v)
			val = string(b)
			if r := []rune(val); len(r) > 60 {
				val = string(r[:57]) + "…"
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

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
