# A two-turn session with a responder for summaries.
turn {
  reasoning = "The user wants the README summarized. Read it first, and look for TODOs."
  text      = "Let me read the README."
  tool_call "read_file" {
    arguments = { path = "README.md", limit = 40 }
  }
  tool_call "search_workspace" {
    id             = "call_search"
    arguments_json = "{\"query\":\"TODO\",\"max_results\":5}"
  }
}

turn {
  text = <<-EOT
    The README explains the quickstart — déjà vu, 日本語 included.
  EOT
}

turn {
  match = "(?i)summari[sz]e the conversation"
  text  = "Summary: README read."
  usage {
    prompt_tokens     = 1000
    cache_hit_tokens  = 900
    cache_miss_tokens = 100
  }
}
