# The offline quickstart: a scripted model (no key, no network) drives the
# real pipeline — provider plugin, tool plugins, approvals, session store.
#
#   go run ./cmd/harness run examples/quickstart/agent.hcl "Tidy up the notes"

workspace = "workspace"

provider "offline" {
  plugin     = "provider-script"
  script     = "turns.hcl"
  chunk_size = 16
}

model "scripted" {
  provider       = "offline"
  id             = "script"
  context_window = 128000

  pricing {
    input_cache_hit  = 0.003
    input_cache_miss = 0.15
    output           = 0.60
  }
}

agent "quickstart" {
  model   = "scripted"
  persona = "A tidy assistant that reads before it writes."
  tools   = ["read_file", "search_workspace", "write_file", "edit_file", "terminal", "emit_artifact"]

  budget {
    max_usd = 0.10
  }

  permissions {
    write          = ["out/**"]
    terminal       = "ask"
    allow_commands = ["wc -l *", "ls *"]
    deny_commands  = ["rm *"]
    unattended     = "deny"
  }
}
