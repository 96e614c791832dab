# An agent with a third-party tool plugin (examples/plugins/jsonquery).
#
#   go build -o examples/thirdparty/bin/harness-tool-jsonquery ./examples/plugins/jsonquery
#   harness plugins lock examples/thirdparty/agent.hcl
#   harness validate examples/thirdparty/agent.hcl

provider "deepseek" {
  api_key = env("DEEPSEEK_API_KEY")
}

model "flash" {
  provider       = "deepseek"
  id             = "deepseek-v4-flash"
  context_window = 1000000
}

plugin "jsonquery" {
  path = "./bin/harness-tool-jsonquery"

  config {
    max_output_bytes = 8192
  }
}

agent "analyst" {
  model = "flash"
  tools = ["read_file", "json_query"]
}
