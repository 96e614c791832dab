workspace = "."

provider "deepseek" {}

model "flash" {
  provider = "deepseek"
}

agent "main" {
  model = "flash"
  tools = ["read_file"]
  context {
    summarizer = "helper"
  }
  permissions {
    terminal = "never" # ERROR: Invalid terminal value
  }
}
