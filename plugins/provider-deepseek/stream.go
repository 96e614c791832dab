package deepseek

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-agent/harness/plugins/internal/providerkit"
	"github.com/harness-agent/harness/plugins/internal/sse"
	"github.com/harness-agent/harness/sdk"
)

// call is one streaming request.
type call struct {
	gen    *generation
	logger hclog.Logger
	req    sdk.StreamRequest
	emit   func(sdk.StreamChunk) error
	bodies *bodyCache // nil: the body is encoded whole

	wd         *providerkit.Watchdog
	keepAlives int
	// chunks counts what the stream has yielded so far: until the first,
	// data events that carry nothing (an empty or role-only delta) are no
	// more a first token than keep-alive comments are.
	chunks int
}

func (c *call) run(parent context.Context) error {
	cfg := c.gen.Config
	if c.req.Model.ID == "" {
		return sdk.Errorf(sdk.KindInvalidRequest, "deepseek: the request names no model")
	}
	var body []byte
	var err error
	if c.bodies != nil {
		body, err = c.bodies.encode(c.req)
	} else {
		body, err = json.Marshal(buildRequest(c.req))
	}
	if err != nil {
		return sdk.Errorf(sdk.KindInvalidRequest, "deepseek: cannot encode the request: %v", err)
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	c.wd = providerkit.StartWatchdog(cfg.firstToken, cfg.idle, cancel)
	defer c.wd.Stop()

	hreq, err := providerkit.NewStreamRequest(ctx, "deepseek", cfg.endpoint, body, func(r *http.Request) {
		for k, vs := range cfg.headers {
			r.Header[k] = append([]string(nil), vs...)
		}
		if cfg.apiKey != "" {
			r.Header.Set("Authorization", "Bearer "+cfg.apiKey)
		}
	})
	if err != nil {
		return err
	}
	c.logger.Debug("request", "endpoint", cfg.shown, "model", c.req.Model.ID, "messages", len(c.req.Messages),
		"tools", len(c.req.Tools), "thinking", c.req.Thinking, "bytes", len(body))
	started := time.Now()
	resp, err := c.gen.Client.Do(hreq)
	if err != nil {
		return c.failure(parent, err, sdk.KindProviderUnavailable, "sending the request to "+cfg.shown)
	}
	defer resp.Body.Close()
	if err := providerkit.CheckStream(resp, statusError, jsonInsteadOfStream); err != nil {
		return err
	}
	tr := newTranslator(func(ch sdk.StreamChunk) error {
		c.chunks++
		return c.emit(ch)
	})
	err = c.read(parent, resp.Body, tr)
	if err != nil && tr.usage != nil && sdk.KindOf(err) != sdk.KindCanceled {
		// Tokens the server reported are billed even though the answer is
		// void: let the core meter them.
		_ = c.emit(sdk.StreamChunk{Type: sdk.ChunkUsage, Usage: tr.usage})
	}
	c.logger.Debug("stream ended", "model", c.req.Model.ID, "data_events", tr.events, "keep_alives", c.keepAlives,
		"finish", tr.finish, "duration", time.Since(started), "ok", err == nil)
	return err
}

// read runs the SSE loop until [DONE], an error, or the end of the body.
func (c *call) read(parent context.Context, body io.Reader, tr *translator) error {
	parser := sse.NewParser(body, sse.Options{
		MaxEventSize: c.gen.Config.maxEvent,
		OnComment: func(string) {
			c.keepAlives++
			c.logger.Trace("keep-alive comment", "count", c.keepAlives)
		},
	})
	for {
		ev, err := parser.Next()
		if errors.Is(err, io.EOF) {
			return c.atEOF(parser, tr)
		}
		if err != nil {
			var size *sse.SizeError
			if errors.As(err, &size) {
				return sdk.Errorf(sdk.KindStreamViolation, "deepseek: after %d data events: %v; raise max_event_bytes if the server really sends such events", tr.events, err)
			}
			return c.failure(parent, err, sdk.KindTruncated, fmt.Sprintf("reading the stream after %d data events", tr.events))
		}
		if ev.Data == "" {
			continue // an empty data event carries nothing, like a keep-alive
		}
		if c.chunks > 0 {
			c.wd.DataEvent()
		}
		switch {
		case ev.Type == "error":
			return tr.errorEvent(ev.Data)
		case ev.Type != "message":
			continue // not a chat completion chunk
		case isDone(ev.Data):
			return tr.done()
		}
		if err := tr.data([]byte(ev.Data)); err != nil {
			return err
		}
		if c.chunks > 0 {
			c.wd.DataEvent() // the first token arms the idle deadline
		}
	}
}

// atEOF decides how a body that ended without a dispatched [DONE] ends.
// A final block without its blank line still counts when it is
// "data: [DONE]" (with or without a newline), or a complete JSON chunk.
func (c *call) atEOF(parser *sse.Parser, tr *translator) error {
	if tail, ok := parser.Unterminated(); ok && tail.Type == "message" {
		if isDone(tail.Data) {
			return tr.done()
		}
		if json.Valid([]byte(tail.Data)) {
			if err := tr.data([]byte(tail.Data)); err != nil {
				return err
			}
		}
	}
	if !c.gen.Config.requireDone && tr.finish != "" {
		return tr.done()
	}
	msg := fmt.Sprintf("deepseek: the stream ended after %d data events without data: [DONE]", tr.events)
	switch open := tr.openToolCall(); {
	case tr.finish != "":
		msg += fmt.Sprintf(" (it had sent finish_reason %q; set require_done = false for servers that never send [DONE])", tr.finish)
	case open != "":
		msg += ", in the middle of " + open
	}
	return sdk.Errorf(sdk.KindTruncated, "%s", msg)
}

// failure classifies a transport error: a deadline of ours, the caller's
// cancellation, or else the given kind.
func (c *call) failure(parent context.Context, err error, kind sdk.ErrorKind, doing string) error {
	return c.wd.Failure(parent, err, kind, "deepseek", doing, fmt.Sprintf("%d keep-alive comments", c.keepAlives))
}

// jsonInsteadOfStream handles a 200 answer with a JSON body: an error
// object some servers send instead of a stream, or a server that ignored
// stream=true.
func jsonInsteadOfStream(resp *http.Response) error {
	body := providerkit.ReadErrorBody(resp)
	var envelope struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &envelope) == nil && len(envelope.Error) > 0 && string(envelope.Error) != "null" {
		if e, ok := parseAPIError(envelope.Error); ok {
			return sdk.Errorf(kindForAPIError(e), "deepseek: HTTP %s with an error body: %s", resp.Status, e)
		}
	}
	return sdk.Errorf(sdk.KindStreamViolation, "deepseek: expected a text/event-stream answer, got application/json: %s", providerkit.Excerpt(body))
}

func isDone(data string) bool { return strings.TrimSpace(data) == "[DONE]" }
