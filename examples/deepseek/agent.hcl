# A coding agent on the real DeepSeek API.
#
#   export DEEPSEEK_API_KEY=sk-...
#   harness run examples/deepseek/agent.hcl "Summarise what this repository does"

workspace = "../.."

provider "deepseek" {
  api_key             = env("DEEPSEEK_API_KEY")
  base_url            = "https://api.deepseek.com"
  timeout_first_token = "120s"
  timeout_idle        = "60s"
}

model "flash" {
  provider       = "deepseek"
  id             = "deepseek-v4-flash"
  context_window = 1000000
  max_output     = 32000
  thinking       = true

  pricing {
    input_cache_hit  = 0.003
    input_cache_miss = 0.15
    output           = 0.60
  }
}

agent "coder" {
  model   = "flash"
  persona = "A careful engineer who reads before writing and keeps changes small."
  system  = file("prompts/coder.md")
  tools   = ["read_file", "search_workspace", "list_files", "write_file", "edit_file", "terminal", "emit_artifact"]

  context {
    threshold   = 0.8
    keep_recent = 6
  }

  budget {
    max_usd = 0.50
  }

  permissions {
    write          = ["docs/**", "examples/**"]
    terminal       = "ask"
    allow_commands = ["go test ./...", "go vet ./...", "git status", "git diff *", "ls *"]
    deny_commands  = ["rm -rf *", "git push *"]
  }
}
