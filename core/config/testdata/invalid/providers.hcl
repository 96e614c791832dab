# A built-in provider's block is decoded against the schema the plugin
# reports (testProviderSchemas here; the real ones in internal/integration).
provider "http" {
  plugin          = "provider-anthropic"
  api_key         = env("DEEPSEEK_API_KEY")
  require_done    = "sometimes"     # ERROR: Incorrect attribute value type
  colour          = "blue"          # ERROR: Unsupported argument
  max_event_bytes = 0               # ERROR: Invalid plugin config value
  headers         = { X-A = ["x"] } # ERROR: Incorrect attribute value type
  timeout_idle    = "0s"            # ERROR: Invalid duration
}

provider "scripted" { # ERROR: Missing required argument
  plugin = "provider-script"
}

provider "missing" {
  plugin = "provider-script"
  script = "no-such-turns.hcl" # ERROR: File not found
}

provider "nested" {
  plugin = "provider-deepseek"
  retry { # ERROR: Unexpected "retry" block
  }
}

model "m" { provider = "http" }
