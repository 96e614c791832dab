package view

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/harness-agent/harness/core/session"
)

// The page's only script and style sheet, inlined into every page and
// allowed by the Content-Security-Policy by their hashes.
var (
	//go:embed view.js
	script string
	//go:embed view.css
	style string
)

// csp is computed on first use, not at package init: the harness binary
// also serves the plugins, which never render a page.
var csp = sync.OnceValue(func() string {
	return "default-src 'none'; script-src " + hash(script) + "; style-src " + hash(style) +
		"; img-src 'none'; base-uri 'none'; form-action 'none'"
})

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// header is the session as the page's data carries it.
type header struct {
	ID        string  `json:"id"`
	Agent     string  `json:"agent"`
	Model     string  `json:"model"`
	Config    string  `json:"config"`
	Workspace string  `json:"workspace"`
	Status    string  `json:"status"`
	StartedAt string  `json:"started_at"`
	EndedAt   string  `json:"ended_at,omitempty"`
	Turns     int     `json:"turns"`
	Tokens    int64   `json:"tokens"`
	CostUSD   float64 `json:"cost_usd"`
}

// Render writes the page of a session and its events (in seq order, as
// session.Store.Events returns them) to w.
func Render(w io.Writer, info session.SessionInfo, events []session.Event) error {
	h := header{
		ID: info.ID, Agent: info.Agent, Model: info.Model, Config: info.ConfigPath, Workspace: info.Workspace,
		Status: info.Status, StartedAt: info.StartedAt.UTC().Format(time.RFC3339Nano),
		Turns: info.Turns, Tokens: info.Tokens, CostUSD: info.CostUSD,
	}
	if !info.EndedAt.IsZero() {
		h.EndedAt = info.EndedAt.UTC().Format(time.RFC3339Nano)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	data := &scriptSafe{w: bw}
	fmt.Fprintf(bw, pageHead, csp(), style)
	if err := writeJSON(data, `{"session":`, h); err != nil {
		return err
	}
	for i, ev := range events {
		sep := `,"events":[`
		if i > 0 {
			sep = ","
		}
		if err := writeJSON(data, sep, ev); err != nil {
			return fmt.Errorf("event %d of session %s: %w", ev.Seq, info.ID, err)
		}
	}
	if len(events) == 0 {
		io.WriteString(data, `,"events":[`)
	}
	io.WriteString(data, "]}")
	fmt.Fprintf(bw, pageTail, script)
	if data.err != nil {
		return data.err
	}
	return bw.Flush()
}

func writeJSON(w io.Writer, prefix string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	io.WriteString(w, prefix)
	_, err = w.Write(b)
	return err
}

// scriptSafe writes JSON into a <script> element: '<' (and '>', '&') can
// only occur inside JSON strings, where \u003c means the same, so no
// "</script>" or "<!--" in a session can end the element early.
type scriptSafe struct {
	w   io.Writer
	err error
}

func (s *scriptSafe) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	start := 0
	for i, c := range p {
		var esc string
		switch c {
		case '<':
			esc = `\u003c`
		case '>':
			esc = `\u003e`
		case '&':
			esc = `\u0026`
		default:
			continue
		}
		if _, s.err = s.w.Write(p[start:i]); s.err != nil {
			return 0, s.err
		}
		if _, s.err = io.WriteString(s.w, esc); s.err != nil {
			return 0, s.err
		}
		start = i + 1
	}
	if _, s.err = s.w.Write(p[start:]); s.err != nil {
		return 0, s.err
	}
	return len(p), nil
}

const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="%s">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>harness session</title>
<style>%s</style>
</head>
<body>
<noscript>This page needs JavaScript to draw the session; <code>harness sessions show ID</code> prints it as text.</noscript>
<script type="application/json" id="session-data">`

const pageTail = `</script>
<script>%s</script>
</body>
</html>
`
