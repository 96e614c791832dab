// Package llm is the harness's unified LLM layer: what the agent loop calls to
// get one assistant message out of a model, without ever seeing HTTP, SSE or
// gRPC.
//
// It owns:
//
//   - the unified types of a model call: [Binding] (an HCL model resolved
//     against its provider's metadata), [Request], [AssistantMessage], and
//     [Cost] (cache hits priced apart from misses);
//   - the model [Registry], which merges HCL model declarations ([ModelDecl])
//     with the [sdk.ModelInfo] a provider plugin reports — HCL values win;
//   - the [Assembler] (DESIGN §5 BlockAssembler), which turns the
//     [sdk.StreamChunk] sequence of one attempt into an [AssistantMessage]
//     and enforces the stream rules: closed blocks are final, nothing may
//     follow finish, tool-call arguments must be JSON;
//   - the llm/stream waterfall ([Client.Complete]): an ordered chain of
//     named in-process [Hook]s — fallback over bindings, retries with
//     backoff, the budget pre-check, metering — around one streamed attempt
//     through a [Streamer].
//
// It does not own the provider plugins or their processes: core/runner
// implements [Streamer] around a core/pluginhost provider handle (the host
// restarts a crashed plugin); provider wire formats live in the provider plugins. It does not
// write events or usage rows either: it reports retries, chunks and usage to
// an [Observer], and the caller records them (llm.retry, assistant.chunk,
// llm.usage, token_usage).
//
// # Retries and void chunks
//
// An attempt streams its chunks to [Observer.OnChunk] as they arrive. When an
// attempt fails and another follows (a retry on the same binding, a
// re-prepare after a stale handle, or a fallback to the next binding),
// [Observer.OnRetry] is called first: every chunk reported since the start of
// the request or the previous OnRetry belongs to a void attempt, and consumers
// drop it (a UI clears the partial answer; the store keeps the chunks but
// resume never reads them). The [AssistantMessage] that Complete returns comes
// only from the attempt that finished.
//
// # Generations
//
// Prepare and Stream of one attempt use one provider adapter generation. The
// Client keeps the handle of each binding; a handle refused as
// stale_handle (the plugin was reconfigured or restarted) is forgotten and
// the call is prepared again — never streamed with old metadata.
package llm
