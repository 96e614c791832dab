provider "p" {}
model "m" { provider = "p" }

agent "a" {
  model   = "m"
  system  = file("prompts/missing.md") # ERROR: Unreadable file
  persona = file(".")                  # ERROR: Unreadable file
}

agent "b" {
  model  = "m"
  system = trimspace(file("../valid/prompts/coder.md"))
}
