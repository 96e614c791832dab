provider "deepseek" {
  timeout_idle = "1 minute"
}

model "flash" {
  provider = "deepseek"
}

agent "coder" {
  model = ["flash", "flsh"]
  system = file("prompts/missing.md")
  context {
    threshold = 1.2
  }
  budget {
    max_usd = 1
  }
}
