# A coding agent on the real Anthropic Messages API, with extended thinking
# and automatic prompt caching.
#
#   export ANTHROPIC_API_KEY=sk-ant-...
#   harness run examples/anthropic/agent.hcl "Summarise what this repository does"

workspace = "../.."

provider "anthropic" {
  plugin              = "provider-anthropic"
  api_key             = env("ANTHROPIC_API_KEY")
  base_url            = "https://api.anthropic.com"
  timeout_first_token = "120s"
  timeout_idle        = "60s"
}

model "sonnet" {
  provider        = "anthropic"
  id              = "claude-sonnet-4-5"
  max_output      = 16000
  thinking        = true
  thinking_budget = 4096

  pricing {
    input_cache_hit   = 0.30
    input_cache_miss  = 3
    input_cache_write = 3.75
    output            = 15
  }
}

agent "coder" {
  model   = "sonnet"
  persona = "A careful engineer who reads before writing and keeps changes small."
  system  = file("../deepseek/prompts/coder.md") # the DeepSeek example's instructions
  tools   = ["read_file", "search_workspace", "list_files", "write_file", "edit_file", "terminal", "emit_artifact"]

  context {
    threshold   = 0.8
    keep_recent = 6
  }

  budget {
    max_usd = 1.00
  }

  permissions {
    write          = ["docs/**", "examples/**"]
    terminal       = "ask"
    allow_commands = ["go test ./...", "go vet ./...", "git status", "git diff *", "ls *"]
    deny_commands  = ["rm -rf *", "git push *"]
  }
}
