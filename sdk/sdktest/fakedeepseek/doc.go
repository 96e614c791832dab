// Package fakedeepseek is a fake DeepSeek chat completions server for
// tests: an httptest.Server that answers POST /chat/completions (and
// /v1/chat/completions) from a queue of scripted responses and records
// every request.
//
// A [Response] is one of:
//
//   - a recorded stream: [Fixture] replays a vercel-style *.chunks.jsonl file
//     (each line as "data: <line>\n\n", then "data: [DONE]\n\n") or a raw
//     *.sse body byte for byte; [SSE] and [Chunks] do the same from memory;
//   - a scripted turn: [Scripted] builds realistic DeepSeek chunks (role
//     delta, reasoning_content deltas, content deltas, tool-call deltas
//     merged by index, a finish chunk carrying usage) from a [Turn];
//   - an HTTP error with a DeepSeek-shaped body
//     ({"error":{"message","type","param","code"}}): [HTTPError], or
//     [StatusError] with the message DeepSeek sends for that status;
//   - a stall: [KeepAliveStall] sends ": keep-alive" comments and no data
//     until the client goes away.
//
// Faults are layered onto a response with its methods: a Retry-After
// header, truncation after N bytes (the connection is dropped, not closed
// cleanly), a delay before every event (slow drip), an error object or a
// malformed JSON chunk after N events, keep-alives instead of the rest of
// the stream after N events, or no [DONE].
//
// Usage in scripted turns is estimated at about 4 bytes per token, and
// prompt caching follows DeepSeek's model: the hit is the longest common
// prefix with any earlier request, counted in whole units of 64 tokens
// (prompt_cache_hit_tokens / prompt_cache_miss_tokens). The prompt is the
// request's "tools" JSON followed by its "messages" JSON, exactly as sent.
//
// The package owns the wire behaviour of a DeepSeek-like server; it knows
// nothing of the harness's provider plugin or the SDK's stream chunks.
package fakedeepseek
