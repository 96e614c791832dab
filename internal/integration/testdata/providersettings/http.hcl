# The HTTP built-ins' blocks, decoded against the schema the plugins report.
provider "deepseek" {
  api_key             = env("DEEPSEEK_API_KEY")
  base_url            = "api.deepseek.com" # ERROR: Invalid URL
  timeout_first_token = "2 minutes"        # ERROR: Invalid duration
  timeout_idle        = "60s"
  headers             = ["X-A"]            # ERROR: Incorrect attribute value type
  require_done        = "sometimes"        # ERROR: Incorrect attribute value type
  colour              = "blue"             # ERROR: Unsupported argument
}

provider "anthropic" {
  plugin          = "provider-anthropic"
  headers         = { "anthropic-beta" = "x", "X-Num" = 5 }
  max_event_bytes = 0                  # ERROR: Invalid plugin config value
  script          = "turns.script"     # ERROR: Unsupported argument
}
