provider "p" {}
model "m" { provider = "p" }

plugin "tool" {
  path     = "../valid/bin/harness-tool-weather"
  approval = "always" # ERROR: Invalid approval value
}

mcp "srv" {
  command  = ["srv"]
  approval = "yes" # ERROR: Invalid approval value
}

hook "h" {
  path   = "../valid/bin/harness-hook-approver"
  phases = [
    "tools/approve",
    "tools/execute", # ERROR: Invalid hook phase
    "tools/approve", # ERROR: Duplicate hook phase
  ]
}

hook "none" {
  path   = "../valid/bin/harness-hook-approver"
  phases = [] # ERROR: Invalid hook phase
}

agent "a" {
  model = "m"
  permissions {
    terminal   = "maybe"        # ERROR: Invalid terminal value
    unattended = "ask"          # ERROR: Invalid unattended value
    sandbox    = "landlock"     # ERROR: Invalid sandbox value
    network    = "yes"          # ERROR: Incorrect attribute value type
  }
}
