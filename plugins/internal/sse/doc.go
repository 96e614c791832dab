// Package sse interprets a text/event-stream body as the WHATWG HTML
// standard specifies ("Parsing an event stream" and "Interpreting an event
// stream", HTML Living Standard §9.2.5–9.2.6).
//
// It owns framing only: lines ended by CR, LF or CRLF (also when a CRLF is
// split across two reads), one leading U+FEFF stripped at the start of the
// stream, comment lines, the fields event, data (multi-line), id (ignored
// when it contains NUL) and retry (ASCII digits only), a field line without
// a colon, and dispatch at a blank line only. An event whose block never
// ends with a blank line is not dispatched; [Parser.Unterminated] shows it
// to callers that want to be lenient about the very end of a stream.
//
// The parser buffers its reader itself, so a line is not limited to
// bufio.Scanner's 64 KiB; instead a configurable cap bounds one line and one
// event's data, and exceeding it fails with a [*SizeError] that names the
// cap. Comments are reported to [Options.OnComment] so callers can see
// keep-alives; they never become events.
//
// What the data means (JSON chunks, [DONE], deadlines) belongs to the
// caller: this package knows nothing about any LLM provider.
package sse
