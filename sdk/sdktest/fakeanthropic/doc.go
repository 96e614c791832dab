// Package fakeanthropic is a fake Anthropic Messages API server for tests:
// an httptest.Server that answers POST /v1/messages from a queue of
// scripted responses, GET /v1/models from a model list, and records every
// request.
//
// It speaks the real framing: every event is "event: <type>\n" +
// "data: <json>\n\n", there is no [DONE], and a stream ends with
// message_stop. A [Response] is one of:
//
//   - a recorded stream: [Fixture] replays a vercel-style *.chunks.jsonl
//     file (each line as one event named by its "type") or a raw *.sse
//     body byte for byte; [Events] and [SSE] do the same from memory;
//   - a scripted turn: [Scripted] builds realistic events (message_start
//     with usage, a ping, thinking blocks with thinking_delta and
//     signature_delta, text blocks, tool_use blocks with input_json_delta
//     pieces, message_delta with stop_reason and usage, message_stop) from
//     a [Turn];
//   - an HTTP error with an Anthropic-shaped body
//     ({"type":"error","error":{"type","message"},"request_id"}):
//     [HTTPError], or [StatusError] with Anthropic's documented type and
//     message for the status (400, 401, 403, 404, 413, 429, 500, 529).
//
// Faults are layered onto a response with its methods: a Retry-After
// header, truncation after N bytes (the connection is dropped), a delay
// before every event, an error event after N events (the stream ends
// there), pings instead of the rest of the stream after N events, and
// leaving out message_stop.
//
// Like the real API the fake checks what it can: the x-api-key
// ([Server.RequireKey]: 401 otherwise) and anthropic-version headers, at
// most four cache_control breakpoints, every tool_use answered by a
// tool_result in the next user turn, and the signature of every thinking
// block sent back (a scripted turn signs its thinking; a block whose text
// or signature changed is a 400, as the API answers).
//
// Prompt caching follows Anthropic's model: the prompt is cut into blocks
// in the API's prefix order (tools, then system, then each content block of
// each message; cache_control itself is not part of a block). A request
// reads the longest prefix, ending at a block boundary at most 20 blocks
// before one of its breakpoints, that an earlier request wrote; it writes
// the prefix up to each of its breakpoints. Prefixes shorter than
// MinCacheTokens are never cached. Tokens are estimated at about 4 bytes
// each; usage reports input_tokens (uncached), cache_read_input_tokens and
// cache_creation_input_tokens.
//
// The package owns the wire behaviour of an Anthropic-like server; it
// knows nothing of the harness's provider plugin or the SDK's chunks.
package fakeanthropic
