# The DeepSeek provider plugin speaks to any OpenAI-compatible server: here a
# local Ollama (`ollama serve`, `ollama pull qwen3:8b`).
#
#   harness run examples/ollama/agent.hcl "What files are in this folder?"

provider "local" {
  plugin       = "provider-deepseek"
  api_key      = "ollama" # Ollama ignores it; the field must not be empty
  base_url     = "http://127.0.0.1:11434/v1"
  require_done = true
}

model "qwen" {
  provider       = "local"
  id             = "qwen3:8b"
  context_window = 32768
  max_output     = 4096
}

agent "local" {
  model = "qwen"
  tools = ["read_file", "search_workspace"]
}
