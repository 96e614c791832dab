// Package providerkit holds what the HTTP provider adapters
// (provider-deepseek, provider-anthropic) share below their wire formats:
// the adapter generation a Configure sets up ([Current], [Generation]) and
// a stream run on it with its errors scrubbed ([Current.Stream]),
// scrubbing the API key out of every message ([Redactor]), the first-token
// and idle deadlines that only data events reset ([Watchdog]), reading a
// Retry-After header ([RetryAfter]), the stream request and the sorting
// of its answer ([NewStreamRequest], [CheckStream]), the error of a
// non-2xx answer ([KindForStatus], [StatusError]) and quoting a payload in
// an error message ([Excerpt]).
//
// It knows nothing of any provider's JSON; framing is package sse's.
package providerkit
