provider "p" {}
provider "p" {} # ERROR: Duplicate provider "p"

model "m" { provider = "p" }
model "m" { provider = "p" } # ERROR: Duplicate model "m"

plugin "shared" {
  path = "../valid/bin/harness-tool-weather"
}

hook "shared" { # ERROR: Duplicate hook "shared"
  path   = "../valid/bin/harness-hook-approver"
  phases = ["tools/approve"]
}

mcp "srv" { command = ["a"] }
mcp "srv" { command = ["b"] } # ERROR: Duplicate mcp "srv"

agent "a" {
  model = "m"
  context {}
  context {} # ERROR: Duplicate context block
}

agent "a" { # ERROR: Duplicate agent "a"
  model = "nope" # ERROR: Reference to undeclared model
}
