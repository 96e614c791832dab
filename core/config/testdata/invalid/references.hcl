provider "deepseek" {}

model "flash" {
  provider = "deepsek" # ERROR: Reference to undeclared provider
}

agent "one" {
  model = "flsh" # ERROR: Reference to undeclared model
}

agent "two" {
  model = [
    "flash",
    "backup", # ERROR: Reference to undeclared model
  ]
  context {
    summarizer = "manager" # ERROR: Reference to undeclared agent
  }
}
