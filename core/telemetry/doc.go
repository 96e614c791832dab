// Package telemetry exports what a run does as OpenTelemetry traces and
// metrics over OTLP (grpc or http/protobuf), to the backend a team already
// watches.
//
// It is a consumer of the session's event stream (docs/events.md), not a
// part of the loop: an Observer turns each committed event into spans
// (the session; a span per turn; per model request, with the GenAI
// semantic-convention attributes; per tool call, with its approval and
// error kind) and metric points (tokens, cost, tool calls, approvals). The
// runner hands it events through its Sink, after the store committed them.
//
// Export is off unless a telemetry block or OTEL_EXPORTER_OTLP_ENDPOINT
// names a collector; off, nothing is created: no exporter, no goroutine,
// no network. The prompt, the model's text and tool arguments and results
// are never exported unless the user opts in (telemetry { content = true }
// or OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true): by default a
// trace carries names, counts, durations, decisions and error kinds only.
//
// The package owns the mapping and the SDK's lifetime; the OTLP wire format
// and batching are the official SDK's.
package telemetry
