// Package script is the offline provider plugin: it plays model turns written
// in a script file through the real provider protocol, with no key, no
// network and no randomness. The quickstart and end-to-end tests run the
// whole harness pipeline on it (DESIGN §10).
//
// # Configuration
//
// The host decodes the provider block against the schema the plugin reports
// (SettingsSchema) and sends Configure the result as JSON:
//
//	{"script": "/abs/path/turns.hcl", "chunk_size": 12, "delay_ms": 0}
//
// script is required and absolute (its schema marks it a path, which the host
// resolves against the configuration file); chunk_size is the size in bytes of each streamed delta
// (default 12); delay_ms pauses between chunks (default 0). Configure reads
// and checks the whole script: a problem is an error naming file:line:column.
// Configuring again reloads the script.
//
// # Script format
//
// A script is HCL: a list of turn blocks.
//
//	turn {
//	  reasoning = "The user wants the README summarized; read it first."
//	  text      = "Let me read the README."
//	  tool_call "read_file" {
//	    arguments = { path = "README.md" }      # an HCL object, sent as JSON
//	  }
//	  tool_call "search_workspace" {
//	    id             = "call_search"          # default call_<position>_<n>
//	    arguments_json = "{\"query\":\"TODO\"}" # or raw JSON text, verbatim
//	  }
//	}
//
//	turn {
//	  text = <<-EOT
//	    The README explains how to run the quickstart.
//	  EOT
//	  usage { prompt_tokens = 1200 }  # overrides the estimate, field by field
//	}
//
//	turn {
//	  match = "(?i)summari[sz]e"  # a responder, outside the sequence
//	  text  = "Summary: the user asked for the README; it was read."
//	}
//
// A turn has any of reasoning, text and tool_call blocks (at least one), and
// optionally finish_reason (default tool_calls when the turn calls tools,
// else stop), usage (prompt_tokens, completion_tokens, cache_hit_tokens,
// cache_miss_tokens, reasoning_tokens) and fail:
//
//	fail {
//	  kind           = "rate_limited"  # a provider error kind
//	  message        = "slow down"
//	  retry_after_ms = 1000
//	  times          = 1               # the first N requests answered by this turn fail
//	  after_chunks   = 0               # chunks streamed before the failure
//	}
//
// # Which turn answers a request
//
// Turns without match form the sequence. A request with N assistant
// messages in its conversation is answered by sequence turn N+1, so a
// resumed session continues where it stopped, and a retried request gets the
// same turn again. A turn with match (a Go regular expression) answers any
// request whose last user or tool message matches it, before the sequence is
// consulted: use it for side conversations such as context summaries. When
// the sequence is exhausted the answer is the text "(script ended)".
//
// # Streaming
//
// A turn streams like a model: a reasoning block (in thinking mode only), a
// text block, then one block per tool call with its argument JSON, each cut
// into chunk_size-byte deltas on UTF-8 boundaries; then finish with usage.
// Usage is estimated at 4 bytes per token; cache hits are the bytes the
// request shares as a prefix with the previous request the provider served.
// The provider offers one model, "script" (context window 128000, all prices
// zero).
package script
