// Package prompt assembles the system prompt of an agent from ordered
// segments: the harness's preamble, the agent's persona, a policy context
// generated from its permissions, the agent's own system text, and the
// table of its tools.
//
// Segments are sorted by order and empty ones dropped. Everything here is
// static for an agent: the same configuration gives the same bytes in every
// session, so the provider's prefix cache hits the whole system prompt from
// the second request on. Session facts (date, working directory) belong in
// the task message (see TaskMessage), never in a segment.
package prompt
