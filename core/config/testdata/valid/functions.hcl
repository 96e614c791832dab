# env(), file() and the string functions.
provider "custom" {
  plugin   = "provider-anthropic"
  api_key  = env("HARNESS_TEST_KEY")
  base_url = format("https://%s/v1", lower("API.Example.COM"))
  headers = {
    "X-Unset" = env("HARNESS_TEST_UNSET")
    "X-Tags"  = join(",", concat(["a"], split(" ", "b c")))
    "X-Json"  = jsonencode({ k = "v" })
  }
  require_done = false
}

model "main" {
  provider = "custom"
  id       = replace("model_1", "_", "-")
}

model "backup" {
  provider = "custom"
  thinking = false
}

agent "writer" {
  model   = ["main", "backup"]
  system  = trimspace(file("prompts/coder.md"))
  persona = upper("terse")
  tools   = ["read_file", "custom__*"]

  permissions {
    terminal   = "deny"
    unattended = "defer"
    sandbox    = "workspace-write"
    network    = true
  }
}

mcp "custom" {
  url      = "https://mcp.example.com/mcp"
  approval = "deny"
}
