provider "p" {
  timeout_first_token = "2 minutes" # ERROR: Invalid duration
  timeout_idle        = "-1s"       # ERROR: Invalid duration
}

model "m" { provider = "p" }

hook "h" {
  path    = "../valid/bin/harness-hook-approver"
  phases  = ["tools/approve"]
  timeout = "10" # ERROR: Invalid duration
}

agent "a" {
  model = "m"
  permissions {
    terminal_timeout = "1h" # ERROR: Invalid duration
  }
}

agent "b" {
  model = "m"
  permissions {
    terminal_timeout     = "30s"
    terminal_max_timeout = "soon" # ERROR: Invalid duration
  }
}

plugin "slow" {
  path    = "../valid/bin/harness-tool-weather"
  sha256  = "8c1c58d223e9242a47f53e8ff2c42b8b49739014ac3a32a6c295516763104028"
  timeout = "0s" # ERROR: Invalid duration
}

mcp "slowmcp" {
  command = ["true"]
  timeout = "forever" # ERROR: Invalid duration
}

agent "c" {
  model = "m"
  context {
    summary_timeout = "-5s" # ERROR: Invalid duration
  }
}
