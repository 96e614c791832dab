// Package anthropic is the harness's provider adapter for Anthropic's
// Messages API. [New] returns the sdk.Provider that
// cmd/harness-provider-anthropic serves as a plugin (and the harness binary
// as the built-in "provider-anthropic").
//
// It owns the HTTP and SSE details of one model call: building the
// request, reading the event stream (with the WHATWG parser in
// plugins/internal/sse), translating each event into sdk.StreamChunk
// values, enforcing the first-token and idle deadlines, and classifying
// every failure into an sdk.ErrorKind. It does not retry (the core does,
// keyed on the kind), keep sessions, or assemble messages.
//
// # Configuration
//
// The plugin owns the provider block's settings, with provider-deepseek's
// attribute names and schema (providerkit.HTTPSettingsSchema): the host
// decodes the block against it and Configure takes the result as JSON:
// api_key (sent as x-api-key), base_url
// (default https://api.anthropic.com; with or without /v1), the two
// timeouts, headers (which may override anthropic-version, default
// 2023-06-01, or add anthropic-beta) and max_event_bytes. require_done is
// ignored: a Messages stream always ends with message_stop.
//
// # Requests
//
// POST /v1/messages with stream true. System messages become the top-level
// system blocks; tool results become tool_result blocks, all results of
// one assistant turn in one user turn (parallel tool calls); tools carry
// the same JSON Schema as input_schema. max_tokens, which the API
// requires, is the request's, else the model's max_output, else 8192.
// Thinking (the model block's thinking, with thinking_budget tokens,
// default 4096, at least 1024) is {"thinking":{"type":"enabled",
// "budget_tokens":N}}; max_tokens is raised above the budget when needed,
// temperature is left out and a forced tool_choice becomes auto, as the
// API requires. The signed thinking blocks of earlier assistant turns
// (and redacted_thinking blocks) go back byte for byte. A request that
// continues a tool turn without a signed thinking block (made with
// thinking off, or by another provider of a fallback list) goes without
// thinking, which the API would otherwise refuse.
//
// Prompt caching is automatic: cache_control breakpoints after the system
// prompt (or the last tool), the last pinned message (the task), the end of
// the previous request's prompt and the newest message — never more than
// the API's four — so each turn reads exactly the prefix the previous one
// wrote, however many blocks a turn adds.
//
// # Streams
//
// message_start gives the message id and the first usage;
// content_block_start/delta/stop map one to one onto blocks with the wire
// index as block index: text (text_delta), thinking (thinking_delta, and
// signature_delta as the chunk's Signature), redacted_thinking (its data
// as Signature) and tool_use (input_json_delta; a call that streams no
// input takes the input of its start, else {}). Server-side blocks
// (server_tool_use, *_tool_result, …) and unknown block, delta and event
// types are skipped; ping is ignored and does not reset the deadlines.
// message_delta's stop_reason and usage (the later figures win) are
// emitted in the finish chunk at message_stop: end_turn and stop_sequence
// → stop, tool_use → tool_calls, max_tokens → length, refusal and
// pause_turn as they are. Usage maps input_tokens to cache misses,
// cache_read_input_tokens to hits and cache_creation_input_tokens to
// writes; the prompt is their sum.
//
// A stream that ends before message_stop is truncated; a second
// message_start of another message, deltas for blocks that never started
// or already stopped, and events that are not JSON are stream violations;
// a repeated message_start of the same message is ignored. An error event
// ends the stream with the kind of its type (overloaded_error and
// api_error: provider_unavailable). None of these closes an open tool
// block, so a half call never runs; usage already reported precedes the
// error so billed tokens are metered.
//
// HTTP statuses: 401 and 403 auth; 400, 404 and 413 invalid_request (a 400
// about the credit balance is billing); 429 rate_limited; 500, 529 and
// other 5xx provider_unavailable; retry-after is passed on. The key never
// appears in an error or log line (plugins/internal/providerkit).
//
// # Models
//
// Models reports built-in metadata for the current Claude models (see
// models.go); once configured with a key it adds the ids GET /v1/models
// lists.
package anthropic
