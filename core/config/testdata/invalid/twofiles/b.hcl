workspace = "." # ERROR: Duplicate workspace attribute

model "flash" { # ERROR: Duplicate model "flash"
  provider = "deepseek"
}

model "pro" {
  provider = "openai" # ERROR: Reference to undeclared provider
}

agent "helper" {
  model = "pro"
  context {
    threshold = 2 # ERROR: Threshold out of range
  }
}
