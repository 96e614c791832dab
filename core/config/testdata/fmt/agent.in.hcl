# A config written in a hurry.
workspace="."

provider "deepseek" {
plugin = "provider-deepseek" # built-in
    api_key= env("DEEPSEEK_API_KEY")
  timeout_first_token ="120s"
}

/* Block comments stay. */
model "flash" {
  provider = "deepseek"
  id = "deepseek-flash"
  context_window = 1000000
    pricing {
  input_cache_hit = 0.003
  output = 0.60
  }
}

agent "coder" {
  model = ["flash","backup"]
  tools = [
    "read_file",  # reads
        "write_file",
  ]
  // the prompt
  system = <<EOT
  Keep heredocs as they are.
EOT
  permissions {
    terminal="ask"
    allow_commands=["go test ./..."]
  }
}
