package config

import (
	"github.com/harness-agent/harness/sdk/schema"
)

// testProviderSchemas stand in for the schemas the built-in provider
// plugins report (core/config cannot import them; internal/integration
// loads fixtures with the real ones): an HTTP provider's settings, with
// each format the host checks, and a scripted provider's path.
func testProviderSchemas(name string) ([]byte, bool) {
	switch name {
	case "provider-deepseek", "provider-anthropic":
		return schema.Object(
			schema.String("api_key", "key").Secret(),
			schema.String("base_url", "URL").HTTPURL(),
			schema.String("timeout_first_token", "duration").Duration(),
			schema.String("timeout_idle", "duration").Duration(),
			schema.StringMap("headers", "headers"),
			schema.Boolean("require_done", "flag"),
			schema.Integer("max_event_bytes", "bytes").Min(1),
		).JSON(), true
	case "provider-script":
		return schema.Object(
			schema.String("script", "file").Path().Required(),
			schema.Integer("chunk_size", "bytes").Min(1),
		).JSON(), true
	}
	return nil, false
}

var testOptions = Options{ProviderSchemas: testProviderSchemas}
