# The example of DESIGN §4, with files that exist under testdata.
workspace = "."

provider "deepseek" {
  plugin              = "provider-deepseek"
  api_key             = env("DEEPSEEK_API_KEY")
  base_url            = "https://api.deepseek.com"
  timeout_first_token = "120s"
  timeout_idle        = "60s"
  max_event_bytes     = 1048576
  headers             = { "X-Team" = "research" }
  require_done        = true
}

model "flash" {
  provider         = "deepseek"
  id               = "deepseek-flash"
  context_window   = 1000000
  max_output       = 32000
  thinking         = true
  replay_reasoning = true
  pricing {
    input_cache_hit  = 0.003
    input_cache_miss = 0.15
    output           = 0.60
  }
}

plugin "weather" {
  path     = "./bin/harness-tool-weather"
  sha256   = "8c1c58d223e9242a47f53e8ff2c42b8b49739014ac3a32a6c295516763104028"
  approval = "allow"
  timeout  = "30s"
  config {
    units = "metric"
  }
}

hook "approver" {
  path    = "./bin/harness-hook-approver"
  phases  = ["tools/approve"]
  timeout = "10s"
}

mcp "everything" {
  command  = ["npx", "-y", "@modelcontextprotocol/server-everything"]
  env      = { "DEBUG" = "0" }
  approval = "ask"
  timeout  = "45s"
}

agent "coder" {
  model     = "flash"
  system    = file("prompts/coder.md")
  persona   = "A careful Go reviewer."
  tools     = ["read_file", "search_workspace", "write_file", "terminal", "emit_artifact", "weather_forecast", "everything__echo"]
  max_turns = 40
  context {
    threshold   = 0.8
    keep_recent = 6
    summarizer  = "context-manager"
    summary_timeout = "20s"
  }
  budget {
    max_tokens = 2000000
    max_usd    = 1.50
  }
  permissions {
    write                = ["src/**", "docs/*.md"]
    terminal             = "ask"
    allow_commands       = ["go test ./...", "git status", "ls *"]
    deny_commands        = ["rm *", "git push *"]
    unattended           = "deny"
    terminal_timeout     = "120s"
    terminal_max_timeout = "600s"
    sandbox              = "off"
  }
}

agent "context-manager" {
  model = "flash"
}
