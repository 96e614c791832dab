package providerkit

import (
	"encoding/json"

	"github.com/harness-agent/harness/sdk/schema"
)

// HTTPSettingsSchema is the schema of the settings of an HTTP provider
// block (provider-deepseek, provider-anthropic): the attributes besides
// "plugin" that the HCL block accepts, as written there (durations are
// strings such as "120s"). Each adapter reports it through
// sdk.ProviderDescriber; the api_key is marked secret.
func HTTPSettingsSchema() json.RawMessage {
	return schema.Object(
		schema.String("api_key", "the API key; use env(\"NAME\") rather than writing it out").Secret(),
		schema.String("base_url", "the API's http:// or https:// base URL"),
		schema.String("timeout_first_token", "how long to wait for the first token, a duration such as \"120s\""),
		schema.String("timeout_idle", "how long the stream may stay silent between events, a duration such as \"60s\""),
		schema.AnyObject("headers", "extra HTTP headers sent with every request, name = value (strings)"),
		schema.Boolean("require_done", "whether a stream ending without its end marker counts as truncated (default true)"),
		schema.Integer("max_event_bytes", "the largest SSE line or event accepted, in bytes (default 16 MiB)").Min(1),
	).JSON()
}
