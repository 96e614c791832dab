package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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

	wd    *providerkit.Watchdog
	pings int
}

func (c *call) run(parent context.Context) error {
	cfg := c.gen.Config
	if c.req.Model.ID == "" {
		return sdk.Errorf(sdk.KindInvalidRequest, "anthropic: the request names no model")
	}
	wire := buildRequest(c.req)
	body, err := json.Marshal(wire)
	if err != nil {
		return sdk.Errorf(sdk.KindInvalidRequest, "anthropic: cannot encode the request: %v", err)
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	c.wd = providerkit.StartWatchdog(cfg.firstToken, cfg.idle, cancel)
	defer c.wd.Stop()

	hreq, err := providerkit.NewStreamRequest(ctx, "anthropic", cfg.messages, body, func(r *http.Request) { setHeaders(c.gen, r) })
	if err != nil {
		return err
	}
	c.logger.Debug("request", "endpoint", cfg.shown, "model", c.req.Model.ID, "messages", len(wire.Messages),
		"tools", len(wire.Tools), "thinking", wire.Thinking != nil, "bytes", len(body))
	started := time.Now()
	resp, err := c.gen.Client.Do(hreq)
	if err != nil {
		return c.failure(parent, err, sdk.KindProviderUnavailable, "sending the request to "+cfg.shown)
	}
	defer resp.Body.Close()
	if err := providerkit.CheckStream(resp, statusError, jsonInsteadOfStream); err != nil {
		return err
	}
	tr := newTranslator(c.emit)
	err = c.read(parent, resp.Body, tr)
	if err != nil && tr.hasUsage && sdk.KindOf(err) != sdk.KindCanceled {
		// Tokens the server reported are billed even though the answer is
		// void: let the core meter them.
		_ = c.emit(sdk.StreamChunk{Type: sdk.ChunkUsage, Usage: tr.usage.sdkUsage()})
	}
	c.logger.Debug("stream ended", "model", c.req.Model.ID, "message", tr.messageID, "events", tr.events, "pings", c.pings,
		"stop_reason", tr.stop, "duration", time.Since(started), "ok", err == nil)
	return err
}

// read runs the SSE loop until message_stop, an error, or the end of the
// body. Ping events, like comments, do not count as data for the
// deadlines: a server that only pings still times out.
func (c *call) read(parent context.Context, body io.Reader, tr *translator) error {
	parser := sse.NewParser(body, sse.Options{MaxEventSize: c.gen.Config.maxEvent})
	for {
		ev, err := parser.Next()
		if errors.Is(err, io.EOF) {
			return c.atEOF(parser, tr)
		}
		if err != nil {
			var size *sse.SizeError
			if errors.As(err, &size) {
				return sdk.Errorf(sdk.KindStreamViolation, "anthropic: after %d events: %v; raise max_event_bytes if the server really sends such events", tr.events, err)
			}
			doing := fmt.Sprintf("reading the stream after %d events", tr.events)
			if open := tr.openToolCall(); open != "" {
				doing += ", in the middle of " + open
			}
			return c.failure(parent, err, sdk.KindTruncated, doing)
		}
		if ev.Data == "" {
			continue
		}
		if ev.Type == "ping" {
			c.pings++
			continue
		}
		c.wd.DataEvent()
		done, err := tr.event(ev.Type, []byte(ev.Data))
		if err != nil || done {
			return err
		}
	}
}

// atEOF: a body that ends before message_stop is truncated, and no tool
// call of it runs. A last event without its blank line still counts when
// it is a complete message_stop.
func (c *call) atEOF(parser *sse.Parser, tr *translator) error {
	if tail, ok := parser.Unterminated(); ok && tail.Data != "" && json.Valid([]byte(tail.Data)) {
		done, err := tr.event(tail.Type, []byte(tail.Data))
		if err != nil || done {
			return err
		}
	}
	msg := fmt.Sprintf("anthropic: the stream ended after %d events without message_stop", tr.events)
	if open := tr.openToolCall(); open != "" {
		msg += ", in the middle of " + open
	}
	return sdk.Errorf(sdk.KindTruncated, "%s", msg)
}

// failure classifies a transport error: a deadline of ours, the caller's
// cancellation, or else the given kind.
func (c *call) failure(parent context.Context, err error, kind sdk.ErrorKind, doing string) error {
	return c.wd.Failure(parent, err, kind, "anthropic", doing, fmt.Sprintf("%d pings", c.pings))
}

// jsonInsteadOfStream handles a 200 answer with a JSON body: an error
// envelope, or a server that ignored stream=true.
func jsonInsteadOfStream(resp *http.Response) error {
	body := providerkit.ReadErrorBody(resp)
	if e, ok := parseEnvelope(body); ok {
		return sdk.Errorf(kindForType(e.Type), "anthropic: HTTP %s with an error body: %s", resp.Status, e)
	}
	return sdk.Errorf(sdk.KindStreamViolation, "anthropic: expected a text/event-stream answer, got application/json: %s", providerkit.Excerpt(body))
}
