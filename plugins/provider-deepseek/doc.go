// Package deepseek is the harness's provider adapter for DeepSeek and other
// OpenAI-compatible chat completions endpoints. [New] returns the
// sdk.Provider that cmd/harness-provider-deepseek serves as a plugin.
//
// It owns the HTTP and SSE details of one model call: building the request,
// reading the text/event-stream answer (with the WHATWG parser in
// plugins/internal/sse), translating each JSON chunk into sdk.StreamChunk values, enforcing
// the first-token and idle deadlines, and classifying every failure into
// an sdk.ErrorKind. It does not retry (the core does, keyed on the kind),
// keep sessions, or assemble messages.
//
// # Configuration
//
// The plugin owns the provider block's settings: it reports their schema
// (providerkit.HTTPSettingsSchema), the host decodes the block against it
// and Configure takes the result as JSON, with the attributes the block
// sets: api_key, base_url, timeout_first_token and timeout_idle (duration
// strings such as "120s"), headers, require_done, and max_event_bytes (cap
// on one SSE line or event, default 16 MiB).
// Defaults: base_url https://api.deepseek.com, 120 s to the first data
// event, 60 s between data events, require_done true. The request goes to
// base_url + "/chat/completions": DeepSeek serves the API at the root and
// under /v1, so both "https://api.deepseek.com" and
// "https://api.deepseek.com/v1" work; a trailing slash is ignored and a
// base_url that already ends in /chat/completions is used as it is. An
// empty api_key sends no Authorization header (local servers need none).
// A Configure that fails leaves the provider unconfigured: Stream refuses
// to run until a valid configuration arrives.
//
// # Requests
//
// The body has stream=true and stream_options.include_usage=true. Thinking
// is requested with {"thinking":{"type":"enabled"|"disabled"}} (DeepSeek's
// OpenAI-format switch) for every deepseek-* model, except deepseek-chat and
// deepseek-reasoner whose names fix the mode; a model of another vendor gets
// the field only to turn thinking on. In thinking mode temperature is not
// sent (DeepSeek ignores it) and a forced tool_choice ("required" or a tool
// name) becomes "auto", which DeepSeek accepts. An assistant message that
// made tool calls carries its reasoning_content when the model replays
// reasoning — in thinking mode also when that reasoning is empty, since
// DeepSeek answers 400 if the field is missing — and content null when it
// has no text. Tool results are role "tool" messages with tool_call_id.
//
// # Streams
//
// Text and reasoning_content become text and reasoning blocks; tool-call
// deltas merge by index (which may start at 1 or have gaps); a null or
// empty id or name never overwrites a value. A tool block opens at the
// call's first delta that names the function (in practice its first delta)
// and stays open while other tool calls stream, so interleaved arguments
// work; blocks end when a block of another kind starts, or at the end. A
// call that streamed no argument bytes gets "{}". Usage comes from the last
// chunk that carries it (DeepSeek's finish chunk, an OpenAI-style
// choices: [] chunk, or running totals): cache hits from
// prompt_cache_hit_tokens, else prompt_tokens_details.cached_tokens; misses
// from prompt_cache_miss_tokens, else prompt minus hits.
//
// The finish chunk (reason and final usage) is emitted only at
// "data: [DONE]" — also when that line ends the body without its blank line
// or without any newline. Content after a finish_reason, a data payload that
// is not JSON (including two payloads merged into one event by a missing
// blank line), a tool call that never gets a name, or an event over the
// size cap is a stream_violation. An error object in a 200 stream (or an
// "event: error") ends the stream with an error whose kind comes from its
// type and code (provider_unavailable when unknown); [DONE] without any
// finish_reason is truncated; finish_reason "insufficient_system_resource"
// is provider_unavailable. When the body ends before [DONE] the stream is
// truncated, unless require_done is false and a finish_reason was seen. An
// errored stream never closes a tool block, so a half call is never taken
// for a whole one; if the server had already reported usage, a ChunkUsage
// precedes the error so billed tokens can be metered.
//
// Deadlines count data events only: ": keep-alive" comments and empty data
// events do not reset them. Missing the first-token or the idle deadline is
// a timeout. HTTP statuses map to kinds: 401 and 403 auth, 402 billing, 400,
// 422 and other 4xx invalid_request, 408 timeout, 429 rate_limited (with
// RetryAfter from Retry-After seconds or an HTTP date), 5xx
// provider_unavailable; the message quotes the server's error message.
// Transport failures before a response are provider_unavailable, after it
// truncated.
//
// # Secrets
//
// The API key never leaves the adapter: every error message and log line
// is scrubbed of the key, of long pieces of it, of anything shaped like an
// "sk-…" key, and of masked echoes such as DeepSeek's "****f00d".
//
// # Models
//
// Models reports built-in metadata for deepseek-flash, deepseek-v4-flash,
// deepseek-v4-pro, deepseek-chat and deepseek-reasoner (see models.go for
// sources and the peak-rate pricing choice); HCL model attributes override
// them in the core.
package deepseek
